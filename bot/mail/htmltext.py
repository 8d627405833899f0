"""HTML-only mail as plain lines: block elements break lines, quoted parts are left out.

Mail clients that send HTML only put a reply's quoted mail in ``<blockquote>`` (or a
``gmail_quote`` / ``moz-cite-prefix`` / Outlook ``divRplyFwdMsg`` block); those are
dropped like ``>`` lines in plain text. Scripts and styles are dropped too.
"""

from __future__ import annotations

from html.parser import HTMLParser

BLOCKS = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table",
          "ul", "ol", "hr", "section", "article", "header", "footer"}
SKIPPED = {"script", "style", "head", "title", "blockquote"}
QUOTE_CLASSES = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "protonmail_quote")
QUOTE_IDS = ("divrplyfwdmsg", "appendonsend")
VOID = {"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        #: Depth inside skipped elements (their open tags, counted per tag name).
        self.stack: list[str] = []
        self.cut = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.cut:
            return
        values = {name: (value or "").lower() for name, value in attrs}
        quoted = (any(c in values.get("class", "") for c in QUOTE_CLASSES)
                  or values.get("id", "") in QUOTE_IDS)
        if values.get("id", "") in QUOTE_IDS:
            self.cut = True  # Outlook: everything after the reply header is the old mail
            return
        if self.stack or tag in SKIPPED or quoted:
            if tag not in VOID:
                self.stack.append(tag)
            return
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if self.stack:
            if tag in self.stack:
                while self.stack and self.stack.pop() != tag:
                    pass
            return
        if tag in BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.stack and not self.cut:
            self.parts.append(data.replace("\xa0", " "))


def html_to_text(html: str) -> str:
    parser = _Text()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # HTMLParser is lenient; keep what was read
        pass
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
