#!/usr/bin/env bash
# ci/history-branch: the history kept as JSON Lines in a results branch of a real (local, bare) remote, pushed
# from two clones that each hold part of the history. Checks: a first push creates the branch; a pull seeds an
# empty database; a push from a clone that lacks the other's lines merges them first (the branch ends as the
# union); a push with nothing new changes nothing; another battery's file lives beside it in the branch; a
# conflicting outcome is refused (exit 2) and the database is left as it was; the checkout is untouched.
#   history_branch_test.sh RECALLBENCH SOURCE_DIR
set -u
rb=$(realpath "$1")
src=$(cd "$2" && pwd)
script="$src/ci/history-branch"
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; else echo "ok: $2"; fi; }
export RECALLBENCH="$rb" GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com

# A simulated history of 9 commits, cut into three parts (each with the header line).
/usr/bin/python3 "$src/tests/history/simulate.py" noise --commits 9 --seeds 3 --configs 2 >"$tmp/all.jsonl"
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
lines = open(tmp + "/all.jsonl").read().splitlines()
head, commits, part = lines[0], [], {}
for l in lines[1:]:
    c = json.loads(l)["commit"]
    if c not in commits:
        commits.append(c)
    part.setdefault(commits.index(c) // 3, []).append(l)
for i in range(3):
    open("%s/part%d.jsonl" % (tmp, i + 1), "w").write("\n".join([head] + part[i]) + "\n")
PY

git init -q --bare "$tmp/origin.git"
git clone -q "$tmp/origin.git" "$tmp/a" 2>/dev/null
git -C "$tmp/a" commit -q --allow-empty -m "code"
git -C "$tmp/a" push -q origin HEAD:main
orig_branch=$(git -C "$tmp/a" rev-parse --abbrev-ref HEAD)
git clone -q "$tmp/origin.git" "$tmp/b" 2>/dev/null

export_of() { "$rb" history export --db "$1"; }
cd "$tmp/a" || exit 1
"$rb" history import "$tmp/part1.jsonl" --db "$tmp/a.sqlite" >/dev/null
check '"$script" pull "$tmp/a.sqlite" | grep -q "no branch"' "pull before the branch exists imports nothing"
check '"$script" push "$tmp/a.sqlite" | grep -q "pushed history.jsonl"' "the first push creates the branch"
check '[ "$(git -C "$tmp/origin.git" show recallbench-history:history.jsonl)" = "$(export_of "$tmp/a.sqlite")" ]' \
  "the branch holds the database's export"

cd "$tmp/b" || exit 1
check '"$script" pull "$tmp/b.sqlite" >/dev/null' "pull into a new database"
check '[ "$(export_of "$tmp/b.sqlite")" = "$(export_of "$tmp/a.sqlite")" ]' "the pulled database equals the pushed one"
"$rb" history import "$tmp/part2.jsonl" --db "$tmp/b.sqlite" >/dev/null
check '"$script" push "$tmp/b.sqlite" >/dev/null' "push from the second clone"

cd "$tmp/a" || exit 1
"$rb" history import "$tmp/part3.jsonl" --db "$tmp/a.sqlite" >/dev/null  # a lacks part 2
check '"$script" push "$tmp/a.sqlite" >/dev/null' "push from a clone that lacks the other's lines"
"$rb" history import "$tmp/all.jsonl" --db "$tmp/union.sqlite" >/dev/null
check '[ "$(git -C "$tmp/origin.git" show recallbench-history:history.jsonl)" = "$(export_of "$tmp/union.sqlite")" ]' \
  "the branch ends as the union of both clones' histories"
check '[ "$(export_of "$tmp/a.sqlite")" = "$(export_of "$tmp/union.sqlite")" ]' "the pushing database gained the other's lines"
before=$(git -C "$tmp/origin.git" rev-parse recallbench-history)
check '"$script" push "$tmp/a.sqlite" | grep -q "already holds everything"' "a push with nothing new"
check '[ "$(git -C "$tmp/origin.git" rev-parse recallbench-history)" = "$before" ]' "... leaves the branch as it was"

# Another battery's database in its own file of the same branch.
"$rb" history import "$tmp/part1.jsonl" --db "$tmp/other.sqlite" >/dev/null
check 'HISTORY_FILE=other.jsonl "$script" push "$tmp/other.sqlite" >/dev/null' "a second file in the branch"
check 'git -C "$tmp/origin.git" show recallbench-history:history.jsonl >/dev/null && git -C "$tmp/origin.git" show recallbench-history:other.jsonl >/dev/null' \
  "both files are in the branch"

# A conflicting outcome (same commit, config and seed, another result): refused, nothing written.
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
out = []
done = False
for l in open(tmp + "/part1.jsonl").read().splitlines():
    j = json.loads(l)
    if not done and "seed" in j:
        j["recall"] = 0.123456
        done = True
    out.append(json.dumps(j))
open(tmp + "/conflict.jsonl", "w").write("\n".join(out) + "\n")
PY
"$rb" history import "$tmp/conflict.jsonl" --db "$tmp/c.sqlite" >/dev/null
cp "$tmp/c.sqlite" "$tmp/c-before.sqlite"
"$script" push "$tmp/c.sqlite" >"$tmp/conflict.log" 2>&1
rc=$?
check '[ "$rc" = 2 ]' "a conflicting outcome is exit 2 (got $rc: $(tr '\n' ' ' <"$tmp/conflict.log"))"
check 'cmp -s "$tmp/c.sqlite" "$tmp/c-before.sqlite"' "... and the database is left as it was"
check '[ -z "$(git -C "$tmp/a" status --porcelain)" ] && [ "$(git -C "$tmp/a" rev-parse --abbrev-ref HEAD)" = "$orig_branch" ]' \
  "the checkout's files and HEAD are untouched"
exit "$fail"
