// Writing aids of the post form and the edit page (no build step; the Content Security Policy
// allows no inline script). Without this script every aid has a plain fallback: the Markdown
// hints under the text box, and reply/quote links that open the form with the reply (and the
// quote, made on the server) already in it.
//
// - the toolbar (templates/escenas/_toolbar.html) wraps the selection in Markdown;
// - "reply" and "quote" on a post fill the form on this page (the quote comes from the server,
//   built from what this reader may see) instead of loading the last page;
// - the live preview box is shown and asked for a first preview when there is text.
(function () {
  "use strict";

  var WRAP = {
    bold: ["**", "**"],
    italic: ["*", "*"],
  };

  function changed(box) {
    // Tell htmx (preview, draft autosave) that the text changed.
    box.dispatchEvent(new Event("input", { bubbles: true }));
    box.dispatchEvent(new Event("keyup", { bubbles: true }));
  }

  function replaceSelection(box, text, selectFrom, selectTo) {
    var start = box.selectionStart;
    var end = box.selectionEnd;
    box.setRangeText(text, start, end, "end");
    if (selectFrom !== undefined) {
      box.setSelectionRange(start + selectFrom, start + selectTo);
    }
    box.focus();
    changed(box);
  }

  function lineStart(box) {
    var start = box.selectionStart;
    return start === 0 || box.value.charAt(start - 1) === "\n";
  }

  function format(box, kind) {
    var selected = box.value.slice(box.selectionStart, box.selectionEnd);
    if (WRAP[kind]) {
      var pair = WRAP[kind];
      var inner = selected || "";
      replaceSelection(box, pair[0] + inner + pair[1], pair[0].length, pair[0].length + inner.length);
      return;
    }
    var before = lineStart(box) ? "" : "\n";
    if (kind === "quote") {
      var quoted = (selected || "").split("\n").map(function (line) {
        return "> " + line;
      }).join("\n");
      replaceSelection(box, before + quoted + "\n", before.length + 2, before.length + quoted.length);
    } else if (kind === "spoiler") {
      var open = before + "::: spoiler\n";
      replaceSelection(box, open + selected + "\n:::\n", open.length, open.length + selected.length);
    }
  }

  function chooseDice() {
    // Dice are rolled by the server with the post: open the roll fields on a dice expression.
    var radio = document.querySelector('input[name="roll_kind"][value="expression"]');
    if (radio) {
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
    var field = document.getElementById("id_roll_expression") || radio;
    if (field) {
      field.focus();
      field.scrollIntoView({ block: "center" });
    }
  }

  function setupToolbars(root) {
    root.querySelectorAll(".md-toolbar[hidden]").forEach(function (bar) {
      bar.hidden = false;
    });
    root.querySelectorAll(".preview-box[hidden]").forEach(function (box) {
      box.hidden = false;
      var preview = box.querySelector(".preview");
      var target = document.getElementById(preview.id.replace(/-preview$/, ""));
      if (target && target.value.trim() && window.htmx) {
        window.htmx.trigger(preview, "preview-now");
      }
    });
    root.querySelectorAll("[data-reply-cancel][hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".md-toolbar button[data-md]");
    if (button) {
      var kind = button.getAttribute("data-md");
      if (kind === "dice") {
        chooseDice();
        return;
      }
      var box = document.getElementById(button.closest(".md-toolbar").getAttribute("data-for"));
      if (box) {
        format(box, kind);
      }
      return;
    }
    var cancel = event.target.closest && event.target.closest("[data-reply-cancel]");
    if (cancel) {
      setReply("", "");
      return;
    }
    var link = event.target.closest && event.target.closest("a[data-reply]");
    if (link && document.getElementById("id_body") && document.getElementById("reply-status")) {
      event.preventDefault();
      reply(link);
    }
  });

  function setReply(id, speaker) {
    var field = document.querySelector('#post-form input[name="reply_to"]');
    var status = document.getElementById("reply-status");
    if (!field || !status) {
      return;
    }
    field.value = id;
    var text = status.querySelector("[data-reply-text]");
    var prefix = status.getAttribute("data-label") || "";
    text.textContent = id ? prefix + " " + speaker : "";
    status.hidden = !id;
    changed(document.getElementById("id_body"));
  }

  function reply(link) {
    var box = document.getElementById("id_body");
    var id = link.getAttribute("data-reply");
    var who = document.getElementById("post-" + id + "-who");
    setReply(id, who ? who.textContent.trim() : "");
    var url = link.getAttribute("data-quote-url");
    if (!url) {
      box.focus();
      box.scrollIntoView({ block: "center" });
      return;
    }
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/plain" } })
      .then(function (response) {
        if (!response.ok) {
          throw new Error(String(response.status));
        }
        return response.text();
      })
      .then(function (quote) {
        box.focus();
        if (!lineStart(box)) {
          quote = "\n\n" + quote;
        }
        replaceSelection(box, quote);
        box.scrollIntoView({ block: "center" });
      })
      .catch(function () {
        window.location.href = link.href; // the server builds the form with the quote
      });
  }

  document.addEventListener("keydown", function (event) {
    var box = event.target;
    if (!(event.ctrlKey || event.metaKey) || !box.classList || !box.classList.contains("post-body")) {
      return;
    }
    var key = event.key.toLowerCase();
    if (key === "b" || key === "i") {
      event.preventDefault();
      format(box, key === "b" ? "bold" : "italic");
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    setupToolbars(document);
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    setupToolbars(event.target);
  });
})();
