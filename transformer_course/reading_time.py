"""How long each page of the book takes to read, computed from its notebook or Markdown file.

Prose at 180 words a minute plus code at 15 non-blank lines a minute, counting only what the
built book shows a reader before the page's `## Answers` heading:
- markdown cells (or a Markdown page): the words a reader sees, without link targets, MyST
  comments (`% ...`), directive options (`:class: tip`) or LaTeX command names;
- code cells: their non-blank lines, `#| export` lines included (the book shows them), except
  the cells the book removes (`remove-cell`, `remove-input`: the `#| default_exp` cells) or
  folds behind a "show code" button (`hide-input`, `hide-cell`: the install cell, the code that
  draws a figure); code fenced in Markdown counts as code;
- never outputs, and nothing from the `## Answers` heading on.

    python -m transformer_course.reading_time [--write]   # the table; --write: the boxes' times too
A Part I chapter's opening box (the markdown cell after its title) says `- **Time:** about N
minutes.`; `--write` sets N to the page's minutes rounded to the nearest 5."""

import argparse
import glob
import json
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS_PER_MINUTE = 180
CODE_LINES_PER_MINUTE = 15
HIDDEN_TAGS = {"remove-cell", "remove-input", "hide-input", "hide-cell"}
ANSWERS = re.compile(r"^##\s+Answers\b", re.MULTILINE)
TIME_LINE = re.compile(r"^(- \*\*Time:\*\* about )(\d+)( minutes?\.)$", re.MULTILINE)
PART_I = "Part I. The Transformer"  # the caption of Part I in _toc.yml

_WORD = re.compile(r"\w+(?:[’'.,:/-]\w+)*")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(\{[\w:-]+\})?\s*(.*)$")
_OPTION = re.compile(r"^\s*:[\w-]+:(\s|$)")


@dataclass
class Counts:
    "What a reader reads on a page: words of prose and non-blank lines of code."

    words: int = 0
    code_lines: int = 0

    def __add__(self, other):
        return Counts(self.words + other.words, self.code_lines + other.code_lines)

    @property
    def minutes(self) -> float:
        return self.words / WORDS_PER_MINUTE + self.code_lines / CODE_LINES_PER_MINUTE


def prose_words(text: str) -> int:
    "Words a reader sees in Markdown `text` (no link targets, images, tags or LaTeX command names)."
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.DOTALL)
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)  # images: no words to read
    text = re.sub(r"\]\([^)]*\)", "] ", text)  # [text](target) -> [text]
    text = re.sub(r"\{[\w:-]+\}`([^`<]*)(<[^>`]*>)?`", r"\1", text)  # {term}`text <target>`
    text = re.sub(r"<[^>\n]+>", " ", text)  # HTML tags
    text = re.sub(r"\\[A-Za-z]+", " ", text)  # \sqrt, \mathrm ...
    return len(_WORD.findall(text))


def markdown_counts(text: str) -> Counts:
    """Counts of a Markdown text: prose outside fences and inside directives ({admonition},
    {dropdown} ...), code inside plain code fences (```python, ```text, ```)."""
    counts, stack = Counts(), []  # stack: the open fences, (marker, is_code)
    for line in text.splitlines():
        if not stack and line.lstrip().startswith("%"):  # a MyST comment
            continue
        fence = _FENCE.match(line)
        if fence:
            marker, directive, rest = fence.groups()
            closes = (
                stack
                and marker.startswith(stack[-1][0][0])
                and len(marker) >= len(stack[-1][0])
                and not directive
                and not rest
            )
            if closes:
                stack.pop()
                continue
            if not (stack and stack[-1][1]):  # a fence opens (not inside code)
                is_code = directive is None or directive in ("{code-block}", "{code-cell}", "{code}")
                stack.append((marker, is_code))
                if directive and not is_code:
                    counts.words += prose_words(rest)  # the directive's title
                continue
        if stack and stack[-1][1]:
            counts.code_lines += bool(line.strip())
        elif not _OPTION.match(line):
            counts.words += prose_words(line)
    return counts


def before_answers(text: str) -> tuple[str, bool]:
    "The part of `text` before a `## Answers` heading, and whether the heading was there."
    found = ANSWERS.search(text)
    return (text[: found.start()], True) if found else (text, False)


def notebook_counts(nb: dict) -> Counts:
    "Counts of a notebook (a dict as json.load gives it), up to its `## Answers` heading."
    counts = Counts()
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] == "markdown":
            if "remove-cell" in tags:
                continue
            source, answers = before_answers(source)
            counts += markdown_counts(source)
            if answers:
                break
        elif cell["cell_type"] == "code" and not tags & HIDDEN_TAGS:
            counts.code_lines += sum(1 for line in source.splitlines() if line.strip())
    return counts


def page_counts(path: Path) -> Counts:
    "Counts of a page of the book: a notebook or a Markdown file."
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        return notebook_counts(json.loads(text))
    return markdown_counts(before_answers(text)[0])


def page_minutes(path: Path) -> float:
    return page_counts(path).minutes


def page_path(doc: str, root: Path = ROOT) -> Path | None:
    "The file of a toc entry ('chapters/01_attention'): its notebook, else its Markdown file."
    for suffix in ("", ".ipynb", ".md"):
        path = Path(root) / f"{doc}{suffix}"
        if path.is_file():
            return path
    return None


def _docs(entries, root: Path) -> list[str]:
    "The documents of toc entries in order: files, their sections, globs expanded (sorted)."
    docs = []
    for entry in entries or []:
        if "file" in entry:
            docs.append(
                str(Path(entry["file"]).with_suffix(""))
                if Path(entry["file"]).suffix in (".ipynb", ".md")
                else entry["file"]
            )
        if "glob" in entry:
            found = sorted(glob.glob(str(Path(root) / entry["glob"])))
            docs += sorted(
                {str(Path(p).relative_to(root).with_suffix("")) for p in found if Path(p).suffix in (".ipynb", ".md")}
            )
        docs += _docs(entry.get("sections"), root)
    return docs


def toc_parts(root: Path = ROOT) -> list[tuple[str, list[str]]]:
    """The book's parts in order, from _toc.yml: [(caption, documents)], the root page first as
    its own part "Start here"; a toc without parts gives one part, "Chapters"."""
    import yaml  # a checkout's dependency (the book's), not the package's

    toc = yaml.safe_load((Path(root) / "_toc.yml").read_text(encoding="utf-8"))
    parts = [("Start here", [toc["root"]])]
    if toc.get("parts"):
        parts += [(p.get("caption", ""), _docs(p.get("chapters"), root)) for p in toc["parts"]]
    else:
        parts.append(("Chapters", _docs(toc.get("chapters"), root)))
    return parts


def title(path: Path) -> str:
    "The page's title: the text of its first `# ` heading."
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown")
    found = re.search(r"^# (.+)$", text, re.MULTILINE)
    return found.group(1).strip() if found else path.stem


def chapter_number(path: Path) -> str | None:
    "The chapter number in the page's title ('# 14 Checkpoints' -> 'chapter 14'), None if it has none."
    found = re.match(r"(\d+(?:\.\d+)?)\.?\s", title(path))
    return found.group(1) if found else None


@dataclass
class Page:
    part: str
    doc: str
    title: str
    counts: Counts

    @property
    def minutes(self) -> float:
        return self.counts.minutes


def book_pages(root: Path = ROOT) -> list[Page]:
    "Every page of the toc that exists, in the book's order, with its part and counts."
    pages = []
    for part, docs in toc_parts(root):
        for doc in docs:
            path = page_path(doc, root)
            if path is not None:
                pages.append(Page(part, doc, title(path), page_counts(path)))
    return pages


def part_minutes(pages: list[Page]) -> dict[str, float]:
    "{part caption: minutes of all its pages}, in the book's order."
    totals = {}
    for p in pages:
        totals[p.part] = totals.get(p.part, 0.0) + p.minutes
    return totals


def nearest_five(minutes: float) -> int:
    "Minutes rounded to the nearest 5 (at least 5), as the opening boxes give them."
    return max(5, 5 * round(minutes / 5))


def box_time(nb: dict) -> int | None:
    "The minutes an opening box states (`- **Time:** about N minutes.`), None without a box."
    for cell in nb["cells"][:4]:
        if cell["cell_type"] == "markdown":
            found = TIME_LINE.search("".join(cell["source"]))
            if found:
                return int(found.group(2))
    return None


def write_box_time(path: Path, minutes: int) -> bool:
    "Set the opening box's time of notebook `path` to `minutes`; True if the file changed."
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    for cell in nb["cells"][:4]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and TIME_LINE.search(source):
            new = TIME_LINE.sub(lambda m: f"{m.group(1)}{minutes}{m.group(3)}", source, count=1)
            if new == source:
                return False
            cell["source"] = new.splitlines(keepends=True)
            Path(path).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            return True
    return False


def stale_boxes(root: Path = ROOT) -> list[tuple[str, int | None, int]]:
    "(page, time its box says, time it should say) for every Part I page whose box is wrong or missing."
    stale = []
    for p in book_pages(root):
        path = page_path(p.doc, root)
        if p.part != PART_I or path.suffix != ".ipynb":
            continue
        said = box_time(json.loads(path.read_text(encoding="utf-8")))
        if said != nearest_five(p.minutes):
            stale.append((p.doc, said, nearest_five(p.minutes)))
    return stale


def table(pages: list[Page]) -> str:
    "The pages and their parts as a plain-text table."
    lines = [f"{'page':<34} {'words':>6} {'code':>5} {'minutes':>8}"]
    for part, total in part_minutes(pages).items():
        lines.append(f"== {part}")
        for p in (p for p in pages if p.part == part):
            lines.append(f"{p.doc:<34} {p.counts.words:>6} {p.counts.code_lines:>5} {p.minutes:>8.1f}")
        lines.append(f"{'   total':<34} {'':>6} {'':>5} {total:>8.1f}  ({total / 60:.2f} h)")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m transformer_course.reading_time",
        description="Reading time of every page of the book (prose at 180 words a minute, code at "
        "15 lines a minute, answers not counted), by part of _toc.yml.",
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this one)")
    parser.add_argument(
        "--write",
        action="store_true",
        help="set the time in every Part I opening box to the computed one, rounded to the nearest 5 minutes",
    )
    args = parser.parse_args(argv)
    pages = book_pages(args.root)
    print(table(pages))
    if args.write:
        for doc, said, should in stale_boxes(args.root):
            path = page_path(doc, args.root)
            if said is None:
                print(f"{doc}: no opening box with a '- **Time:** about N minutes.' line")
            elif write_box_time(path, should):
                print(f"{doc}: {said} -> {should} minutes")


if __name__ == "__main__":
    main()
