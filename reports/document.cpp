// The document model's builders and its three renderers (see document.h).
#include "reports/document.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/json_io.h"
#include "reports/report.h"

namespace rb::reports {

// ---- building ---------------------------------------------------------------------------------------------

Inline::Inline(std::string text) { this->text(std::move(text)); }
Inline::Inline(const char* text) { this->text(text); }

Inline& Inline::push(Span span) {
  spans_.push_back(std::move(span));
  return *this;
}

Inline& Inline::text(std::string s) { return push({Span::Kind::kText, std::move(s)}); }

Inline& Inline::code(std::string s, std::string title) {
  return push({Span::Kind::kCode, std::move(s), "", std::move(title)});
}

Inline& Inline::strong(Inline s) { return push({Span::Kind::kStrong, "", "", "", s.spans()}); }

Inline& Inline::sub(Inline s) { return push({Span::Kind::kSub, "", "", "", s.spans()}); }

Inline& Inline::link(std::string href, Inline s) { return push({Span::Kind::kLink, "", "", std::move(href), s.spans()}); }

Inline& Inline::color(std::string css_color, Inline s) {
  return push({Span::Kind::kColor, "", "", std::move(css_color), s.spans()});
}

Inline& Inline::badge(Tone tone, std::string s) { return push({Span::Kind::kBadge, std::move(s), "", "", {}, tone}); }

Inline& Inline::interval(double low, double high, double rate) {
  return push({Span::Kind::kIntervalBar, "", "", "", {}, Tone::kPlain, low, high, rate});
}

Inline& Inline::raw(std::string html, std::string markdown) {
  return push({Span::Kind::kRaw, std::move(html), std::move(markdown)});
}

Inline& Inline::append(const Inline& other) {
  spans_.insert(spans_.end(), other.spans_.begin(), other.spans_.end());
  return *this;
}

Cell::Cell(Inline c, double v) : content(std::move(c)), sort(fmt::format("{}", v)) {}

Group& Group::add(Block b, Show show) {
  b.show = show;
  blocks.push_back(std::move(b));
  return *this;
}

Document& Document::add(Block b, Show show) {
  b.show = show;
  blocks.push_back(std::move(b));
  return *this;
}

// ---- HTML ---------------------------------------------------------------------------------------------------

namespace {

std::string attr(const char* name, const std::string& value) {
  return value.empty() ? std::string() : fmt::format(" {}=\"{}\"", name, html_escape(value));
}

std::string html_of(const std::vector<Span>& spans) {
  std::string s;
  for (const auto& span : spans) {
    switch (span.kind) {
      case Span::Kind::kText: s += html_escape(span.text); break;
      case Span::Kind::kCode: s += "<code" + attr("title", span.attribute) + ">" + html_escape(span.text) + "</code>"; break;
      case Span::Kind::kStrong: s += "<b>" + html_of(span.inner) + "</b>"; break;
      case Span::Kind::kSub: s += "<span class=\"sub\">" + html_of(span.inner) + "</span>"; break;
      case Span::Kind::kLink: s += "<a" + attr("href", span.attribute) + ">" + html_of(span.inner) + "</a>"; break;
      case Span::Kind::kColor: s += "<span" + attr("style", "color:" + span.attribute) + ">" + html_of(span.inner) + "</span>"; break;
      case Span::Kind::kBadge: s += badge(span.tone, span.text); break;
      case Span::Kind::kIntervalBar: s += interval_bar(span.low, span.high, span.rate); break;
      case Span::Kind::kRaw: s += span.text; break;
    }
  }
  return s;
}
std::string html_of(const Inline& text) { return html_of(text.spans()); }

// The plain text of inline text (for attributes): its text spans and the text inside its wrappers.
std::string plain_of(const std::vector<Span>& spans) {
  std::string s;
  for (const auto& span : spans)
    s += span.inner.empty() ? (span.kind == Span::Kind::kRaw || span.kind == Span::Kind::kIntervalBar ? "" : span.text)
                            : plain_of(span.inner);
  return s;
}

std::string html_cell(const Cell& c, const std::string& label, bool labelled) {
  std::string s = c.header ? "<th scope=\"row\"" : "<td";
  if (labelled) s += " data-label=\"" + html_escape(label) + "\"";
  if (c.sort) s += " data-v=\"" + *c.sort + "\"";
  if (c.cls) s += " class=\"" + html_escape(*c.cls) + "\"";
  if (c.colspan > 1) s += fmt::format(" colspan=\"{}\"", c.colspan);
  s += attr("title", c.title);
  return s + ">" + html_of(c.content) + (c.header ? "</th>" : "</td>");
}

std::string html_table(const Table& t) {
  std::string s = t.scroll ? "<div class=\"scroll\"><table" : "<table";
  s += attr("class", t.cls) + attr("id", t.id) + "><thead><tr>";
  std::vector<std::string> labels;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const HeadCell& h = t.columns[i];
    labels.push_back(h.data_label ? *h.data_label : plain_of(h.label.spans()));
    s += "<th" + attr("class", h.cls) + (h.title ? " title=\"" + html_escape(*h.title) + "\"" : "") + (h.sortable ? fmt::format(" data-col=\"{}\"", i) : "") +
         ">" + html_of(h.label) + "</th>";
  }
  s += "</tr></thead><tbody>";
  for (const Row& r : t.rows) {
    s += "<tr" + attr("id", r.id) + (r.cls ? " class=\"" + html_escape(*r.cls) + "\"" : "") + attr("title", r.title) + ">";
    for (size_t i = 0; i < r.cells.size(); ++i)
      s += html_cell(r.cells[i], i < labels.size() ? labels[i] : std::string(), t.labelled);
    s += "</tr>";
  }
  return s + (t.scroll ? "</tbody></table></div>" : "</tbody></table>");
}

std::string html_figure(const Figure& f) {
  std::string s = "<figure><figcaption>" + html_of(f.caption) + "</figcaption>";
  if (const auto* line = std::get_if<LineChart>(&f.chart))
    s += line_chart(line->title, line->x, line->y, line->series, line->hline, line->legend);
  else
    s += trend_chart(std::get<TrendChart>(f.chart));
  if (!f.legend.empty()) {
    s += "<div class=\"legend\">";
    for (const auto& item : f.legend)
      s += fmt::format("<span><i style=\"background:{}\"{}></i>{}</span>", item.color, item.dashed ? " class=\"dash\"" : "",
                       html_of(item.label));
    s += "</div>";
  }
  return s + "</figure>";
}

std::string html_strip_chart(const StripChart& c) {
  const auto at = [](double x) { return 1.5 + 97 * std::clamp(x, 0.0, 1.0); };  // a value's x, in percent
  std::string s = "<div class=\"lottery\">";
  for (const auto& row : c.rows) {
    std::string dots;
    for (size_t i = 0; i < row.dots.size(); ++i) {
      const auto& dot = row.dots[i];
      dots += fmt::format("<circle cx=\"{:.2f}%\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\">"
                          "<title>{}</title></circle>",
                          at(dot.x), 12 + (static_cast<double>(i % 5) - 2.0) * 3.2,
                          dot.filled ? c.filled_color : "white", dot.filled ? c.filled_color : c.hollow_color,
                          html_escape(dot.title));
    }
    s += "<div class=\"lrow\"><div class=\"llabel\">" + html_of(row.label) + "<div class=\"sub\">" + html_of(row.note) +
         "</div></div><svg class=\"chart strip\" width=\"100%\" height=\"26\" role=\"img\" aria-label=\"" +
         html_escape(row.aria) + "\"><line x1=\"1.5%\" x2=\"98.5%\" y1=\"12\" y2=\"12\" class=\"grid\"/>";
    if (!std::isnan(row.ref))
      s += fmt::format("<line x1=\"{0:.2f}%\" x2=\"{0:.2f}%\" y1=\"1\" y2=\"24\" class=\"ref\"/>", at(row.ref));
    s += dots + "</svg></div>";
  }
  return s + "<div class=\"lrow\"><div></div><div class=\"scale\"><span>0</span><span>0.5</span><span>1.0</span></div></div>"
             "</div>";
}

std::string html_group(const Group& g, const HtmlRenderer& r) {
  switch (g.kind) {
    case Group::Kind::kSection:
      return "<section" + attr("class", g.cls) + attr("id", g.id) + ">" + r.render_blocks(g.blocks) + "</section>";
    case Group::Kind::kHeader: return "<header>" + r.render_blocks(g.blocks) + "</header>";
    case Group::Kind::kDiv: return "<div" + attr("class", g.cls) + ">" + r.render_blocks(g.blocks) + "</div>";
    case Group::Kind::kDetails:
      return "<details><summary>" + html_of(g.summary) + "</summary>" + r.render_blocks(g.blocks) + "</details>";
  }
  return "";
}

}  // namespace

std::string HtmlRenderer::render_blocks(const std::vector<Block>& blocks) const {
  std::string s;
  for (const Block& b : blocks) {
    if (b.show == Show::kMarkdownOnly) continue;
    const auto& c = b.content;
    if (const auto* h = std::get_if<Heading>(&c)) s += fmt::format("<h{0}>{1}</h{0}>", h->level, html_of(h->text));
    else if (const auto* p = std::get_if<Paragraph>(&c)) s += "<p" + attr("class", p->cls) + ">" + html_of(p->text) + "</p>";
    else if (const auto* l = std::get_if<List>(&c)) {
      s += "<ul" + attr("class", l->cls) + ">";
      for (const auto& item : l->items) s += "<li>" + html_of(item) + "</li>";
      s += "</ul>";
    } else if (const auto* dl = std::get_if<Definitions>(&c)) {
      s += "<dl>";
      for (const auto& [term, text] : dl->items) s += "<dt>" + html_of(term) + "</dt><dd>" + html_of(text) + "</dd>";
      s += "</dl>";
    } else if (const auto* t = std::get_if<Table>(&c)) s += html_table(*t);
    else if (const auto* f = std::get_if<Figure>(&c)) s += html_figure(*f);
    else if (const auto* strip = std::get_if<StripChart>(&c)) s += html_strip_chart(*strip);
    else if (const auto* g = std::get_if<Group>(&c)) s += html_group(*g, *this);
    else s += std::get<Raw>(c).text;
  }
  return s;
}

std::string HtmlRenderer::render(const Document& doc) const { return html_page(doc.title, render_blocks(doc.blocks)); }

// ---- Markdown -----------------------------------------------------------------------------------------------

namespace {

std::string md_escaped(const std::string& s, MarkdownEscape escape) {
  if (escape == MarkdownEscape::kNone) return s;
  std::string out;
  out.reserve(s.size());
  const bool html = escape == MarkdownEscape::kHtmlSafe;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || (html && c == '\r')) out += ' ';
    else if (html && c == '<') out += "&lt;";
    else if (html && c == '>') out += "&gt;";
    else if (html && c == '`') out += '\'';
    else out += c;
  }
  return out;
}

std::string md_of(const std::vector<Span>& spans, MarkdownEscape escape) {
  std::string s;
  for (const auto& span : spans) {
    switch (span.kind) {
      case Span::Kind::kText:
      case Span::Kind::kBadge: s += md_escaped(span.text, escape); break;
      case Span::Kind::kCode: s += "`" + md_escaped(span.text, escape) + "`"; break;
      case Span::Kind::kStrong: s += "**" + md_of(span.inner, escape) + "**"; break;
      case Span::Kind::kSub:
      case Span::Kind::kLink:
      case Span::Kind::kColor: s += md_of(span.inner, escape); break;
      case Span::Kind::kIntervalBar: break;
      case Span::Kind::kRaw: s += span.markdown; break;
    }
  }
  return s;
}

// "| a | b |": an empty cell is "| |".
std::string md_row(const std::vector<std::string>& cells) {
  std::string s = "|";
  for (const auto& c : cells) s += " " + c + (c.empty() ? "" : " ") + "|";
  return s + "\n";
}

std::string md_table(const Table& t, MarkdownEscape escape) {
  std::vector<std::string> head;
  std::string rule = "|";
  for (const auto& h : t.columns) {
    head.push_back(md_of(h.label.spans(), escape));
    rule += (h.numeric ? t.rule.substr(0, t.rule.find_last_of('-') + 1) + ":" + t.rule.substr(t.rule.find_last_of('-') + 1)
                       : t.rule) +
            "|";
  }
  std::string s = md_row(head) + rule + "\n";
  for (const Row& r : t.rows) {
    std::vector<std::string> cells;
    for (const Cell& c : r.cells) {
      cells.push_back(md_of(c.content.spans(), escape));
      cells.resize(cells.size() + static_cast<size_t>(std::max(c.colspan, 1) - 1));
    }
    s += md_row(cells);
  }
  return s;
}

// Each block's Markdown, ending in a line break; empty for a block with none.
void md_blocks(const std::vector<Block>& blocks, MarkdownEscape escape, std::vector<std::string>& out) {
  for (const Block& b : blocks) {
    if (b.show == Show::kHtmlOnly) continue;
    const auto& c = b.content;
    if (const auto* h = std::get_if<Heading>(&c))
      out.push_back(std::string(static_cast<size_t>(h->level + 1), '#') + " " + md_of(h->text.spans(), escape) + "\n");
    else if (const auto* p = std::get_if<Paragraph>(&c)) out.push_back(md_of(p->text.spans(), escape) + "\n");
    else if (const auto* l = std::get_if<List>(&c)) {
      std::string s;
      for (const auto& item : l->items) s += "- " + md_of(item.spans(), escape) + "\n";
      out.push_back(s);
    } else if (const auto* dl = std::get_if<Definitions>(&c)) {
      std::string s;
      for (const auto& [term, text] : dl->items)
        s += "- " + md_of(term.spans(), escape) + ": " + md_of(text.spans(), escape) + "\n";
      out.push_back(s);
    } else if (const auto* t = std::get_if<Table>(&c)) out.push_back(md_table(*t, escape));
    else if (const auto* strip = std::get_if<StripChart>(&c)) {
      std::string s;
      for (const auto& row : strip->rows)
        s += "- " + md_of(row.label.spans(), escape) + ": " + md_of(row.note.spans(), escape) + "\n";
      out.push_back(s);
    } else if (const auto* g = std::get_if<Group>(&c)) md_blocks(g->blocks, escape, out);
    else if (const auto* r = std::get_if<Raw>(&c)) out.push_back(r->text);
  }
}

}  // namespace

std::string MarkdownRenderer::render(const Document& doc) const {
  std::vector<std::string> parts;
  md_blocks(doc.blocks, doc.markdown_escape, parts);
  std::string s;
  for (auto p : parts) {
    while (!p.empty() && p.back() == '\n') p.pop_back();  // a raw block's own trailing lines
    if (!p.empty()) s += p + "\n\n";
  }
  return s;
}

// ---- JSON ---------------------------------------------------------------------------------------------------

std::string JsonRenderer::render(const Document& doc) const { return doc.json.dump(2) + "\n"; }

void write_outputs(const Document& doc, const OutputPaths& paths) {
  if (!paths.json.empty()) {
    RB_ASSERT(!doc.json.is_null(), "a document without a JSON form was asked for JSON");
    write_text_atomic(paths.json, JsonRenderer().render(doc));
  }
  if (!paths.html.empty()) write_text_atomic(paths.html, HtmlRenderer().render(doc));
  if (!paths.md.empty()) write_text_atomic(paths.md, MarkdownRenderer().render(doc));
}

}  // namespace rb::reports
