"""Sphinx extension for the book: links from a chapter to a repository file that is not a
page of the book (an exercise notebook, say) point to that file in the repository.

In JupyterLab, `[exercises/01_attention.ipynb](../exercises/01_attention.ipynb)` opens the
notebook next to the chapter. The book leaves exercises/ out of the site, so there the same
link becomes a link to the file on the repository's web page (repository settings in
_config.yml). An exercise counts as existing once its solution does (exercises/ is generated
from solutions/ by `make exercises`). A link to a file that does not exist stays unresolved, and MyST's warning
fails the `-W` build as before.
"""

import posixpath
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import SphinxPostTransform


def _exists(root, path):
    "The file is in the repository (an exercise counts once its solution is: `make exercises`)."
    if (root / path).is_file():
        return True
    parts = path.split("/")
    return parts[0] == "exercises" and (root / "solutions" / "/".join(parts[1:])).is_file()


class RepositoryFileLinks(SphinxPostTransform):
    default_priority = 5  # before MyST's reference resolver (priority 9)

    def run(self, **kwargs):
        env, config = self.env, self.config
        options = config.html_theme_options or {}
        url = (options.get("repository_url") or "").rstrip("/")
        branch = options.get("repository_branch") or "main"
        if not url:
            return
        root = Path(env.srcdir)
        for node in list(self.document.findall(addnodes.pending_xref)):
            kind, target = node.get("reftype"), node.get("reftarget", "")
            if kind not in ("myst", "doc") or not target or "://" in target or target.startswith("#"):
                continue
            refdoc = node.get("refdoc", env.docname)
            if kind == "doc" or node.get("refdomain") == "doc":  # a link to a notebook: MyST made it a docname
                docname = target.lstrip("/")  # already resolved against the linking page
                if docname in env.found_docs:
                    continue  # a page of the book: Sphinx resolves it
                found = [docname + s for s in (".ipynb", ".md") if _exists(root, docname + s)]
                if not found:
                    continue
                path = found[0]
            else:
                path = posixpath.normpath(posixpath.join(posixpath.dirname(refdoc), target))
                if path.startswith("..") or not _exists(root, path):
                    continue
                if posixpath.splitext(path)[0] in env.found_docs:
                    continue  # a page of the book: MyST resolves it
            ref = nodes.reference("", "", internal=False, refuri=f"{url}/blob/{branch}/{path}")
            ref += node.children
            node.replace_self(ref)


def setup(app):
    app.add_post_transform(RepositoryFileLinks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
