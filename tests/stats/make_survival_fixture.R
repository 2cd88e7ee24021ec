# Makes tests/stats/survival_reference.json: censored two-group datasets with R's survival package as the
# independent reference for rb_stats' Kaplan–Meier estimate, median, restricted mean and log-rank test
# (stats/survival.cpp; the test is tests/stats/stats_test.cpp). A dev-time tool, not a project dependency:
#
#   apt-get install -y --no-install-recommends r-base-core r-cran-survival r-cran-jsonlite
#   Rscript tests/stats/make_survival_fixture.R > tests/stats/survival_reference.json
#
# Datasets look like lock-in times: small groups (3-30), times on a grid of 50 (heavy ties), censoring at a
# step budget, some with early censoring, no events in one group, or no events at all; plus Freireich's
# 6-MP leukemia data. For each: the data, survdiff's obs/exp/var/chisq (group a first), survfit's median
# and restricted mean per group, and each group's Kaplan–Meier steps.
suppressPackageStartupMessages({
  library(survival)
  library(jsonlite)
})
set.seed(20240611)

grid <- 50

# One group of n lock-in times: an event at a multiple of `grid` drawn from [lo, hi], never locked in
# (censored at `budget`) with probability p_never, censored early (at a grid time) with probability p_early.
draw_group <- function(n, lo, hi, budget, p_never = 0.2, p_early = 0) {
  t <- grid * sample(seq(lo %/% grid, hi %/% grid), n, replace = TRUE)
  event <- rep(1L, n)
  never <- runif(n) < p_never
  t[never] <- budget
  event[never] <- 0L
  early <- !never & runif(n) < p_early
  t[early] <- grid * sample(seq(1, budget %/% grid), sum(early), replace = TRUE)
  event[early] <- 0L
  late <- t >= budget & event == 1L
  event[late] <- 0L  # an event at or after the budget is not seen: censored at the budget
  t[late] <- budget
  list(time = t, event = event)
}

describe <- function(name, a, b, tau) {
  time <- c(a$time, b$time)
  status <- c(a$event, b$event)
  group <- factor(c(rep("a", length(a$time)), rep("b", length(b$time))), levels = c("a", "b"))
  d <- list(name = name, a = list(time = I(a$time), event = I(a$event)),
            b = list(time = I(b$time), event = I(b$event)), tau = tau)
  if (sum(status) > 0) {
    sd <- survdiff(Surv(time, status) ~ group)
    d$observed <- as.numeric(sd$obs)
    d$expected <- as.numeric(sd$exp)
    d$variance <- sd$var[1, 1]
    d$chisq <- if (sd$var[1, 1] > 0) sd$chisq else NA
  } else {
    d$observed <- c(0, 0)  # survdiff has nothing to test without events
    d$expected <- c(0, 0)
    d$variance <- 0
    d$chisq <- NA
  }
  fit <- survfit(Surv(time, status) ~ group)
  tab <- summary(fit, rmean = tau)$table
  d$median <- as.numeric(tab[, "median"])
  d$rmean <- as.numeric(tab[, "rmean"])
  km <- function(g) {
    f <- survfit(Surv(g$time, g$event) ~ 1)
    list(time = I(f$time), n_risk = I(f$n.risk), n_event = I(f$n.event), n_censor = I(f$n.censor), surv = I(f$surv))
  }
  d$km <- list(a = km(a), b = km(b))
  d
}

out <- list()
# Freireich et al. (1963), remission times in weeks: 6-MP (censored marked +) vs placebo.
mp <- list(time = c(6, 6, 6, 6, 7, 9, 10, 10, 11, 13, 16, 17, 19, 20, 22, 23, 25, 32, 32, 34, 35),
           event = c(1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0))
placebo <- list(time = c(1, 1, 2, 2, 3, 4, 4, 5, 5, 8, 8, 8, 8, 11, 11, 12, 12, 15, 17, 22, 23), event = rep(1, 21))
out[[length(out) + 1]] <- describe("freireich", mp, placebo, 35)

budget <- 1000
for (i in 1:30) {
  na <- sample(3:30, 1)
  nb <- sample(3:30, 1)
  shift <- sample(c(0, 0, 100, 300), 1)
  a <- draw_group(na, 50, 700, budget, p_never = runif(1, 0, 0.5), p_early = if (i %% 3 == 0) 0.2 else 0)
  b <- draw_group(nb, 50 + shift, 700 + shift, budget, p_never = runif(1, 0, 0.5),
                  p_early = if (i %% 4 == 0) 0.2 else 0)
  tau <- if (i %% 2 == 0) budget else 600
  out[[length(out) + 1]] <- describe(sprintf("random-%02d", i), a, b, tau)
}
# No events in group a (every seed of a failed to lock in), and in group b.
for (i in 1:3) {
  n <- sample(3:12, 1)
  a <- list(time = rep(budget, n), event = rep(0L, n))
  b <- draw_group(sample(3:12, 1), 50, 800, budget, p_never = 0.2)
  out[[length(out) + 1]] <- describe(sprintf("a-no-events-%d", i), a, b, budget)
  out[[length(out) + 1]] <- describe(sprintf("b-no-events-%d", i), b, a, budget)
}
# No events at all; events and censorings tied at the same times; few distinct times; exact S = 0.5 stretches.
out[[length(out) + 1]] <- describe("all-censored", list(time = rep(budget, 4), event = rep(0L, 4)),
                                   list(time = c(budget, budget, 500), event = rep(0L, 3)), budget)
out[[length(out) + 1]] <- describe("event-censor-ties", list(time = c(100, 100, 200, 200, 300, 300), event = c(1, 0, 1, 0, 1, 0)),
                                   list(time = c(100, 200, 200, 300, 400, 400), event = c(0, 1, 1, 0, 1, 0)), 500)
out[[length(out) + 1]] <- describe("two-times", list(time = c(50, 50, 50, 1000, 1000, 1000), event = c(1, 1, 1, 0, 0, 0)),
                                   list(time = c(50, 1000, 1000, 1000, 1000, 1000), event = c(1, 0, 0, 0, 0, 0)), 1000)
out[[length(out) + 1]] <- describe("median-flat-half", list(time = c(100, 200, 300, 400), event = c(1, 1, 1, 1)),
                                   list(time = c(100, 200, 300, 400, 500, 600), event = c(1, 1, 1, 1, 1, 0)), 600)

cat(toJSON(list(
  provenance = paste0("tests/stats/make_survival_fixture.R with R ", getRversion(), " and survival ",
                      packageVersion("survival"), " (survdiff: obs, exp, var[1,1], chisq; survfit: median, ",
                      "rmean with rmean = tau, per-group Kaplan-Meier steps); numbers to 15 significant digits ",
                      "(jsonlite); null = undefined (no median reached, or no variance)"),
  datasets = out), digits = NA, auto_unbox = TRUE, na = "null", pretty = TRUE))
cat("\n")
