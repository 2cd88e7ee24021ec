// The report layer's document model and its renderers, the way Google Benchmark's reporters share one
// interface: a report is built once as a Document (headings, paragraphs, tables of typed cells, figures, lists,
// grouped into sections), and each output format is a Renderer of it. HTML pages come out in the report
// stylesheet's frame (html_page) with the shared parts of html_parts.h (badge, interval bar, sortable table
// head, line chart, trend chart); Markdown is the short form for a CI job summary; JSON, where a report has a
// schema'd JSON form, is that form as it is.
//
//   Document d{"recallbench history: smoke"};
//   d.add(Heading{1, Inline("recallbench history")});
//   Table t{{{"config"}, {"lock-in", true}}};
//   t.rows.push_back({{Cell{Inline().link("#cfg-0", "diag+conv")}, Cell{"7/10", 0.7}}});
//   d.add(std::move(t));
//   write_outputs(d, {"page.json", "page.html", "summary.md"});  // or HtmlRenderer().render(d) ...
//
// A block is shown by every renderer unless it says otherwise (Show): a page's charts are HTML only, a
// summary table written for the Markdown form is Markdown only.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/html_parts.h"

namespace rb::reports {

// ---- inline text --------------------------------------------------------------------------------------------

// One run of inline text; see Inline.
struct Span {
  enum class Kind { kText, kCode, kStrong, kSub, kLink, kColor, kBadge, kIntervalBar, kRaw };
  Kind kind = Kind::kText;
  std::string text{};         // kText, kCode, kBadge: the text (each renderer escapes it); kRaw: the HTML
  std::string markdown{};     // kRaw: the Markdown
  std::string attribute{};    // kLink: the target; kColor: the colour; kCode: its hover title (HTML), none when empty
  std::vector<Span> inner{};  // kStrong, kSub, kLink, kColor: what they wrap
  Tone tone = Tone::kPlain;                 // kBadge
  double low = 0, high = 0, rate = 0;       // kIntervalBar
};

// Inline text: plain text, code, bold, a secondary note, links, verdict badges, interval bars, each shown
// the way its format shows it (Markdown: `code`, **bold**, a link's text, a badge's text, no bar).
//   Inline("before ").code("abc1234").strong(Inline("regression"))
class Inline {
 public:
  Inline() = default;
  Inline(std::string text);  // NOLINT(google-explicit-constructor): plain text reads as inline text
  Inline(const char* text);  // NOLINT(google-explicit-constructor)

  Inline& text(std::string s);
  Inline& code(std::string s, std::string title = "");  // HTML <code title=…>
  Inline& strong(Inline s);                             // HTML <b>, Markdown **…**
  Inline& sub(Inline s);                                // HTML <span class="sub">, Markdown plain
  Inline& link(std::string href, Inline s);
  Inline& color(std::string css_color, Inline s);       // HTML <span style="color:…">, Markdown plain
  Inline& badge(Tone tone, std::string s);
  Inline& interval(double low, double high, double rate);  // the lock-in interval bar (HTML only)
  Inline& raw(std::string html, std::string markdown = "");  // already formatted for each format
  Inline& append(const Inline& other);

  bool empty() const { return spans_.empty(); }
  const std::vector<Span>& spans() const { return spans_; }

 private:
  Inline& push(Span span);
  std::vector<Span> spans_;
};

// ---- blocks -------------------------------------------------------------------------------------------------

// Which renderers show a block.
enum class Show { kAll, kHtmlOnly, kMarkdownOnly };

// A heading: level 1 is the page title (HTML <h1>, Markdown "##": a job summary's title is one level down).
struct Heading {
  Heading(int lvl, Inline t) : level(lvl), text(std::move(t)) {}
  int level = 2;
  Inline text;
};

// A paragraph; `cls` its HTML class ("note", "meta"), none when empty.
struct Paragraph {
  Paragraph(Inline t, std::string c = "") : text(std::move(t)), cls(std::move(c)) {}  // NOLINT: text reads as one
  Inline text;
  std::string cls;
};

// A bulleted list; `cls` its HTML class, none when empty.
struct List {
  std::vector<Inline> items;
  std::string cls{};
};

// A list of terms and their descriptions (HTML <dl>; Markdown "- term: description").
struct Definitions {
  std::vector<std::pair<Inline, Inline>> items;
};

// A table's column head: its label, whether a click sorts by it (data-col), its HTML class and hover title,
// whether it holds numbers.
struct HeadCell {
  HeadCell(Inline l, bool sort = false, std::string c = "", std::optional<std::string> t = {}, bool num = false)  // NOLINT
      : label(std::move(l)), sortable(sort), cls(std::move(c)), title(std::move(t)), numeric(num) {}
  Inline label;
  bool sortable = false;
  std::string cls;
  std::optional<std::string> title;  // written even when empty if set
  bool numeric = false;              // right-aligned in Markdown ("---:")
  std::optional<std::string> data_label{};  // what a labelled table repeats on its cells (default: the label)
};

// A table cell: its content and, for a sortable column, the value it sorts by (data-v).
struct Cell {
  Inline content;
  std::optional<std::string> sort;  // data-v="…"; Cell(content, number) writes the number's shortest form
  std::optional<std::string> cls;  // HTML class, written even when empty if set
  std::string title;               // hover title, none when empty
  bool header = false;             // a row header, <th scope="row">
  int colspan = 1;                 // Markdown: the cell and colspan − 1 empty ones
  Cell() = default;
  Cell(Inline c) : content(std::move(c)) {}  // NOLINT(google-explicit-constructor)
  Cell(const char* c) : content(c) {}        // NOLINT(google-explicit-constructor)
  Cell(std::string c) : content(std::move(c)) {}  // NOLINT(google-explicit-constructor)
  Cell(Inline c, double v);
};

// A table row; `cls` its HTML class (a verdict's tone class), written even when empty if set.
struct Row {
  Row() = default;
  Row(std::vector<Cell> c, std::optional<std::string> k = {}) : cells(std::move(c)), cls(std::move(k)) {}  // NOLINT
  std::vector<Cell> cells;
  std::optional<std::string> cls;
  std::string id, title;  // HTML id and hover title, none when empty
};

// A table. HTML: in a horizontally scrolling box unless `scroll` is false; `labelled` repeats each column's
// label on its cells (data-label) for the narrow-screen layout. Markdown: `rule` is each column's part of
// the line under the head ("---" gives |---|---|, " --- " gives | --- | --- |).
struct Table {
  Table() = default;
  explicit Table(std::vector<HeadCell> c) : columns(std::move(c)) {}
  std::vector<HeadCell> columns;
  std::vector<Row> rows;
  std::string cls, id;
  bool scroll = true;
  bool labelled = false;
  std::string rule = "---";
};

// The line chart of html_parts.h (line_chart; km_series for a Kaplan–Meier curve).
struct LineChart {
  std::string title;
  Axis x, y;
  std::vector<Series> series;
  double hline = NAN;
  bool legend = true;
};

// One entry of a figure's legend: a colour swatch and its label; dashed: a dashed line instead.
struct LegendItem {
  LegendItem(std::string c, Inline l, bool d = false) : color(std::move(c)), label(std::move(l)), dashed(d) {}
  std::string color;
  Inline label;
  bool dashed = false;
};

// A figure: a caption over a chart, with a legend below when it has items.
struct Figure {
  Figure(Inline c, std::variant<LineChart, TrendChart> ch, std::vector<LegendItem> l = {})
      : caption(std::move(c)), chart(std::move(ch)), legend(std::move(l)) {}
  Inline caption;
  std::variant<LineChart, TrendChart> chart;
  std::vector<LegendItem> legend;
};

// Rows of dots on a 0–1 scale, each row with a label, a note under it and a reference line: the lock-in lottery,
// one dot per seed at its final accuracy, filled when it locked in. HTML: <div class="lottery"> of rows, dots
// jittered over five lanes, the scale 0 · 0.5 · 1.0 under them; Markdown: per row "label: note".
struct StripChart {
  struct Dot {
    double x = 0;        // 0–1, clamped
    bool filled = false;
    std::string title;   // the hover
  };
  struct Row {
    Inline label, note;
    std::string aria;    // the SVG's aria-label
    double ref = NAN;    // the reference line (none when NaN)
    std::vector<Dot> dots;
  };
  std::string filled_color, hollow_color;  // a filled dot's colour, a hollow dot's stroke
  std::vector<Row> rows;
};

struct Block;

// Blocks grouped as one HTML element: a <section> (id and class as given), the page <header>, a <div> of
// class `cls` (a grid of figures), or a <details> box opened by its `summary`. Markdown shows the blocks.
struct Group {
  enum class Kind { kSection, kHeader, kDiv, kDetails };
  Group(Kind k = Kind::kSection, std::string i = "", std::string c = "")  // NOLINT: {} is an empty section
      : kind(k), id(std::move(i)), cls(std::move(c)) {}
  Kind kind = Kind::kSection;
  std::string id, cls;
  Inline summary;  // kDetails
  std::vector<Block> blocks;

  Group& add(Block b, Show show = Show::kAll);
};

// Verbatim text for one format (a page's own stylesheet).
struct Raw {
  explicit Raw(std::string t) : text(std::move(t)) {}
  std::string text;
};

// One block of a document: any of the kinds above, and which renderers show it.
struct Block {
  template <typename T, typename = std::enable_if_t<!std::is_same_v<std::decay_t<T>, Block>>>
  Block(T block, Show shown = Show::kAll) : content(std::move(block)), show(shown) {}  // NOLINT: any block kind

  std::variant<Heading, Paragraph, List, Definitions, Table, Figure, StripChart, Group, Raw> content;
  Show show = Show::kAll;
};

// What Markdown text escapes: nothing; table syntax (| and line breaks); or also what a job summary would read
// as HTML (<, >, backquotes to quotes).
enum class MarkdownEscape { kNone, kTable, kHtmlSafe };

// A whole report: its title (the HTML page's <title>), its blocks, its JSON form where it has one, and what
// its Markdown form escapes.
struct Document {
  explicit Document(std::string t = "") : title(std::move(t)) {}
  std::string title;
  std::vector<Block> blocks;
  nlohmann::json json;  // null: no JSON form
  MarkdownEscape markdown_escape = MarkdownEscape::kTable;

  Document& add(Block b, Show show = Show::kAll);
};

// ---- renderers ----------------------------------------------------------------------------------------------

// One output format of a document.
class Renderer {
 public:
  virtual ~Renderer() = default;
  virtual std::string render(const Document& doc) const = 0;
};

// A self-contained HTML page: html_page(title, blocks).
class HtmlRenderer : public Renderer {
 public:
  std::string render(const Document& doc) const override;
  // The blocks alone, without the page frame.
  std::string render_blocks(const std::vector<Block>& blocks) const;
};

// Markdown: each block followed by a blank line, the last one too, so that summaries appended one after
// another (CI's $GITHUB_STEP_SUMMARY) never run a table into the next block; headings one level down (level 1
// is "##"); text escaped as the document says (markdown_escape).
class MarkdownRenderer : public Renderer {
 public:
  std::string render(const Document& doc) const override;
};

// The document's JSON form, indented by 2 with a final line break (as write_json_atomic writes it).
class JsonRenderer : public Renderer {
 public:
  std::string render(const Document& doc) const override;
};

// Where a command writes a document (its --json, --html and --md); an empty path is not written.
struct OutputPaths {
  std::string json, html, md;
  bool any() const { return !json.empty() || !html.empty() || !md.empty(); }
};

// Writes `doc` in each format asked for, each file atomically (write_text_atomic): JsonRenderer to `json`
// (an internal error for a document without a JSON form), HtmlRenderer to `html`, MarkdownRenderer to `md`.
void write_outputs(const Document& doc, const OutputPaths& paths);

}  // namespace rb::reports
