// The audit page: one item at a time, labels kept in this browser under the audit's id as
// they are given, exported as a labels file for `judgeagent audit import`. No request leaves
// the page; every text is set with textContent, never parsed as HTML.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("audit-data").textContent);
  var LABELS = data.labels, VALID = LABELS[0];
  var STORE_KEY = "judgeagent-audit:" + data.audit_id;
  var items = data.items;
  var byKey = {};
  Object.keys(data.shortcuts).forEach(function (label) { byKey[data.shortcuts[label]] = label; });
  var $ = function (id) { return document.getElementById(id); };
  var state = loadLocal();
  var at = Math.min(Math.max(0, state.pos || 0), items.length - 1);

  // Labels are kept twice. localStorage answers at once, so the page opens on its labels, but
  // Chromium writes it to disk lazily: a browser that crashes or is killed loses the last
  // seconds of it. IndexedDB is on disk when its transaction completes, so "saved" is shown
  // only then. Each save carries a revision; on opening, the newer copy wins.
  var db = null, dbReady = false, touched = false, pending = 0;

  function loadLocal() {
    try {
      var raw = window.localStorage.getItem(STORE_KEY);
      if (raw) {
        var s = JSON.parse(raw);
        if (usable(s)) { return s; }
      }
    } catch (e) {
      // IndexedDB may still keep the labels; openStore() warns if neither can.
    }
    return { auditor: "", labels: {}, pos: 0, rev: 0 };
  }

  function usable(s) { return !!(s && typeof s === "object" && s.labels && typeof s.labels === "object"); }

  function storeState(text) { var s = $("saved"); s.setAttribute("data-state", text); return s; }

  function openStore() {
    var req;
    try {
      req = window.indexedDB.open("judgeagent-audit", 1);
    } catch (e) {
      return noStore(e);
    }
    req.onupgradeneeded = function () { req.result.createObjectStore("audits"); };
    req.onerror = function () { noStore(req.error); };
    req.onsuccess = function () {
      db = req.result;
      var get = db.transaction("audits").objectStore("audits").get(STORE_KEY);
      get.onerror = function () { noStore(get.error); };
      get.onsuccess = function () {
        var kept = get.result;
        dbReady = true;
        if (usable(kept) && (kept.rev || 0) > (state.rev || 0) && !touched) {
          state = kept;
          at = Math.min(Math.max(0, state.pos || 0), items.length - 1);
          $("auditor").value = state.auditor || "";
          if (items.length) { show(); return; }
        }
        save();
      };
    };
  }

  function noStore(err) {
    dbReady = true;
    db = null;
    storeState(canLocal() ? "local" : "none");
    if (!canLocal()) {
      warn("This browser does not let the page keep labels (" + (err && err.name) + "): export them before closing it.");
    }
  }

  function canLocal() {
    try { window.localStorage.setItem(STORE_KEY + ":probe", "1"); window.localStorage.removeItem(STORE_KEY + ":probe"); return true; } catch (e) { return false; }
  }

  function save() {
    state.pos = at;
    state.rev = (state.rev || 0) + 1;
    try {
      window.localStorage.setItem(STORE_KEY, JSON.stringify(state));
    } catch (e) {
      // IndexedDB below still keeps them; a warning comes only if that fails too.
    }
    if (!dbReady) { return; }  // the kept copy is read first, so it is not overwritten unseen
    if (!db) {
      if (canLocal()) { $("saved").textContent = "saved in this browser " + new Date().toLocaleTimeString(); }
      return;
    }
    pending++;
    storeState("saving");
    try {
      var tx = db.transaction("audits", "readwrite");
      tx.objectStore("audits").put(JSON.parse(JSON.stringify(state)), STORE_KEY);
      tx.oncomplete = function () {
        pending--;
        if (!pending) { storeState("saved").textContent = "saved " + new Date().toLocaleTimeString(); }
      };
      tx.onerror = tx.onabort = function () {
        pending--;
        storeState("failed");
        warn("Could not save in this browser (" + (tx.error && tx.error.name) + "): export your labels now.");
      };
    } catch (e) {
      pending--;
      storeState("failed");
      warn("Could not save in this browser (" + e.name + "): export your labels now.");
    }
  }

  function warn(text) { var w = $("warning"); w.textContent = text; w.hidden = false; }

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }

  function entry(id) { return state.labels[id] || { labels: [], comment: "", at: "" }; }
  function labelled(id) { var e = state.labels[id]; return !!(e && e.labels && e.labels.length); }
  function isInvalid(id) { var e = state.labels[id]; return labelled(id) && e.labels.some(function (l) { return l !== VALID; }); }

  function setEntry(id, e) {
    touched = true;
    e.at = new Date().toISOString();
    if (!e.labels.length && !e.comment) { delete state.labels[id]; } else { state.labels[id] = e; }
    save();
  }

  function toggle(label) {
    var item = items[at];
    var e = entry(item.item_id);
    var labels = e.labels.slice();
    if (label === VALID) {
      labels = (labels.length === 1 && labels[0] === VALID) ? [] : [VALID];
    } else {
      labels = labels.filter(function (l) { return l !== VALID; });
      var i = labels.indexOf(label);
      if (i >= 0) { labels.splice(i, 1); } else { labels.push(label); }
      labels.sort(function (a, b) { return LABELS.indexOf(a) - LABELS.indexOf(b); });
    }
    setEntry(item.item_id, { labels: labels, comment: e.comment || "", at: e.at });
    showLabels();
    showProgress();
    showGrid();
    showModel();
  }

  // ------------------------------------------------------------------ showing an item
  function badge(text, cls) { return el("span", "badge" + (cls ? " " + cls : ""), text); }

  function show() {
    var item = items[at];
    var badges = $("badges");
    badges.textContent = "";
    if (item.role === "sample") {
      var chance = item.probability ? " (drawn with probability " + item.probability.toFixed(3) + ")" : "";
      var what = item.status === "rejected" ? "random sample of the gate's rejects, for the gate's figures" : "random sample";
      badges.appendChild(badge(what + " · stratum " + item.stratum + chance, "sample"));
    } else {
      badges.appendChild(badge("suspect: not in the random sample, not in the rate", "suspect"));
    }
    var level = item.level || "unknown level";
    if (item.counted_as && item.counted_as !== item.level) { level += " (counts as " + item.counted_as + ")"; }
    badges.appendChild(badge(level));
    badges.appendChild(badge(item.status === "rejected" ? "rejected by the gate" : item.status, item.status === "rejected" ? "rejected" : ""));
    $("question").textContent = item.question;
    var opts = $("options");
    opts.textContent = "";
    if (item.options) {
      Object.keys(item.options).forEach(function (letter) {
        var li = el("li", letter === item.key ? "key" : "");
        if (letter === item.key) { li.appendChild(el("span", "tag", "key")); }
        li.appendChild(el("span", "letter", letter + "."));
        li.appendChild(document.createTextNode(item.options[letter]));
        opts.appendChild(li);
      });
      $("key").textContent = "Key: " + item.key + ". " + item.key_text;
    } else {
      $("key").textContent = "Key: " + item.key;
    }
    showFacts(item);
    showPath(item);
    showChunks(item);
    var missing = $("missing");
    missing.textContent = "";
    (item.missing || []).forEach(function (m) { missing.appendChild(el("li", "", "missing: " + m)); });
    $("comment").value = entry(item.item_id).comment || "";
    $("position").textContent = "Item " + (at + 1) + " of " + items.length;
    $("prev").disabled = at === 0;
    $("next").disabled = at === items.length - 1;
    showLabels();
    showProgress();
    showGrid();
    showModel();
    save();
  }

  function showFacts(item) {
    var facts = $("facts");
    facts.textContent = "";
    var rows = [["where", item.ref], ["batch", item.batch], ["written by", item.written_by], ["item id", item.item_id]];
    if (item.gate) {
      var failed = Object.keys(item.gate.checks || {}).filter(function (k) { return item.gate.checks[k].passed === false; });
      var reasons = failed.map(function (k) { return k + ": " + (item.gate.checks[k].reason || "failed"); });
      rows.push(["quality gate", item.gate.passed ? "passed" + (item.gate.single_hop ? " (single-hop)" : "") : "rejected: " + reasons.join("; ")]);
    }
    if (item.rationale) { rows.push(["writer's reason", item.rationale]); }
    if (item.reasons && item.reasons.length) { rows.push(["why a suspect", item.reasons.join("; ")]); }
    if (item.recovered_from) { rows.push(["text from", "the run's " + item.recovered_from]); }
    rows.forEach(function (r) {
      if (r[1] === null || r[1] === undefined || r[1] === "") { return; }
      facts.appendChild(el("dt", "", r[0]));
      facts.appendChild(el("dd", "", String(r[1])));
    });
  }

  function chunkNumber(item) {
    var n = {};
    (item.chunks || []).forEach(function (c, i) { n[c.chunk_id] = i + 1; });
    return n;
  }

  function showPath(item) {
    var path = $("path");
    path.textContent = "";
    if (!item.path || !item.path.length) { return; }
    var n = chunkNumber(item);
    path.appendChild(el("span", "", "Knowledge path:"));
    item.path.forEach(function (step, i) {
      if (i) { path.appendChild(el("span", "arrow", linkText(step, n))); }
      path.appendChild(el("span", "entity", step.entity + " [" + (n[step.chunk_id] || "?") + "]"));
    });
  }

  // How a step's entity follows the previous one's: through a shared passage, or a jump.
  function linkText(step, n) {
    var edge = step.edge === "strong" ? step.edge_weight + " shared passage" + (step.edge_weight === 1 ? "" : "s") + " in the corpus"
      : step.edge === "weak" ? "neighbouring passages" : "no edge in the graph";
    if (step.via === "chunk") { return "→ both in [" + (n[step.via_chunk] || "?") + "] (" + edge + ") →"; }
    if (step.via === "jump") { return "⇢ walk dead-ended, jumped to the nearest passage (" + edge + ") ⇢"; }
    if (step.via === "random") { return "⇢ random passage (" + edge + ") ⇢"; }
    return "→";
  }

  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  function showChunks(item) {
    var box = $("chunks");
    box.textContent = "";
    (item.chunks || []).forEach(function (c, i) {
      var q = el("blockquote", "chunk");
      q.appendChild(el("span", "src", "[" + (i + 1) + "] " + c.chunk_id));
      // The entities of this passage's step, and those that the walk reached through it (the link's shared passage).
      var names = (item.path || []).filter(function (s) { return (s.chunk_id === c.chunk_id || s.via_chunk === c.chunk_id) && s.entity; })
        .map(function (s) { return s.entity; });
      appendMarked(q, c.text, names, c.cited || []);
      box.appendChild(q);
    });
  }

  // The path's entities marked in the chunk's text, matched without regard to case; a seed's
  // cited sentences marked as such (whitespace and case as the citation check ignores them).
  function appendMarked(node, text, names, cited) {
    var sentences = cited.map(function (c) { return c.trim().split(/\s+/).map(escapeRe).join("\\s+"); }).filter(function (c) { return c; });
    var words = names.map(escapeRe).sort(function (a, b) { return b.length - a.length; });
    if (!sentences.length && !words.length) { node.appendChild(document.createTextNode(text)); return; }
    var re = new RegExp("(" + sentences.concat(words).join("|") + ")", "gi");
    var isCited = sentences.length ? new RegExp("^(?:" + sentences.join("|") + ")$", "i") : null;
    var last = 0, m;
    while ((m = re.exec(text)) !== null) {
      if (m.index > last) { node.appendChild(document.createTextNode(text.slice(last, m.index))); }
      var cite = isCited !== null && isCited.test(m[0]);
      node.appendChild(el("mark", cite ? "cited" : "", m[0]));
      if (cite) { node.lastChild.title = "cited by the seed as support for its key"; }
      last = m.index + m[0].length;
      if (m[0].length === 0) { re.lastIndex++; }
    }
    if (last < text.length) { node.appendChild(document.createTextNode(text.slice(last))); }
  }

  function showLabels() {
    var e = entry(items[at].item_id);
    Array.prototype.forEach.call(document.querySelectorAll("#labels .label"), function (b) {
      b.setAttribute("aria-pressed", e.labels.indexOf(b.getAttribute("data-label")) >= 0 ? "true" : "false");
    });
  }

  // The model auditor's verdict is shown only once this person has labelled the item, so it
  // cannot steer the label it is compared with.
  function showModel() {
    var item = items[at], box = $("model"), body = $("model-body");
    if (!item.model) { box.hidden = true; return; }
    box.hidden = false;
    body.textContent = "";
    if (!labelled(item.item_id)) {
      body.appendChild(el("p", "", "Shown once you have labelled this item."));
      box.open = false;
      return;
    }
    var m = item.model;
    var blind = m.blind_answer ? m.blind_answer + (m.blind_matches_key === true ? " (the key)" : m.blind_matches_key === false ? " (not the key)" : "") : "";
    var rows = [["model", m.model], ["blind answer", blind], ["key judged", m.key_verdict], ["labels", (m.labels || []).join(", ")],
      ["reason", m.reason], ["error", m.error]];
    var dl = el("dl", "facts");
    rows.forEach(function (r) {
      if (!r[1]) { return; }
      dl.appendChild(el("dt", "", r[0]));
      dl.appendChild(el("dd", "", String(r[1])));
    });
    body.appendChild(dl);
  }

  function showProgress() {
    var sample = items.filter(function (i) { return i.role === "sample"; });
    var suspects = items.filter(function (i) { return i.role !== "sample"; });
    var done = sample.filter(function (i) { return labelled(i.item_id); }).length;
    var text = "Random sample: " + done + " of " + sample.length + " labelled";
    if (suspects.length) {
      text += " · suspects: " + suspects.filter(function (i) { return labelled(i.item_id); }).length + " of " + suspects.length;
    }
    $("progress-text").textContent = text;
    $("meter").style.width = (sample.length ? (100 * done / sample.length) : 0) + "%";
  }

  function showGrid() {
    var grid = $("grid");
    grid.textContent = "";
    var role = null;
    items.forEach(function (item, i) {
      if (item.role !== role) {
        role = item.role;
        grid.appendChild(el("span", "group", role === "sample" ? "Random sample (the figures rest on these)" : "Suspects (listed after the sample; not in the figures)"));
      }
      var b = el("button", (labelled(item.item_id) ? "done" : "") + (isInvalid(item.item_id) ? " bad" : "") + (i === at ? " here" : ""), String(i + 1));
      b.type = "button";
      b.title = (labelled(item.item_id) ? entry(item.item_id).labels.join(", ") : "not labelled") + " · " + item.ref;
      b.addEventListener("click", function () { go(i); });
      grid.appendChild(b);
    });
  }

  function go(i) {
    if (i < 0 || i >= items.length) { return; }
    at = i;
    show();
    window.scrollTo(0, 0);
  }

  function nextOpen() {
    for (var k = 1; k <= items.length; k++) {
      var i = (at + k) % items.length;
      if (!labelled(items[i].item_id)) { go(i); return; }
    }
  }

  // ------------------------------------------------------------------ export
  function exportLabels() {
    var who = $("auditor").value.trim();
    if (!who) {
      warn("Type your name before exporting: it tells your labels from another auditor's.");
      $("auditor").focus();
      return;
    }
    var out = {
      format: "judgeagent-audit-labels", version: 1, audit_id: data.audit_id, audit_dir: data.audit_dir,
      auditor: who, kind: "person", exported: new Date().toISOString(),
      labels: Object.keys(state.labels).filter(labelled).sort().map(function (id) {
        var e = state.labels[id];
        return { item_id: id, labels: e.labels, comment: e.comment || "", at: e.at || "" };
      })
    };
    var blob = new Blob([JSON.stringify(out, null, 2) + "\n"], { type: "application/json" });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "labels-" + data.audit_id + "-" + who.replace(/[^A-Za-z0-9._-]+/g, "-") + ".json";
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    $("saved").textContent = "exported " + out.labels.length + " labels";
  }

  // ------------------------------------------------------------------ wiring
  Array.prototype.forEach.call(document.querySelectorAll("#labels .label"), function (b) {
    b.addEventListener("click", function () { toggle(b.getAttribute("data-label")); });
  });
  $("prev").addEventListener("click", function () { go(at - 1); });
  $("next").addEventListener("click", function () { go(at + 1); });
  $("next-open").addEventListener("click", nextOpen);
  $("export").addEventListener("click", exportLabels);
  $("comment").addEventListener("input", function () {
    var id = items[at].item_id, e = entry(id);
    setEntry(id, { labels: e.labels.slice(), comment: $("comment").value, at: e.at });
  });
  $("auditor").value = state.auditor || "";
  $("auditor").addEventListener("input", function () { touched = true; state.auditor = $("auditor").value; save(); });
  document.addEventListener("keydown", function (ev) {
    var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName);
    if (ev.key === "Escape" && typing) { ev.target.blur(); return; }
    if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    if (byKey[ev.key]) { toggle(byKey[ev.key]); ev.preventDefault(); return; }
    var act = {
      ArrowRight: function () { go(at + 1); }, j: function () { go(at + 1); }, n: function () { go(at + 1); },
      ArrowLeft: function () { go(at - 1); }, k: function () { go(at - 1); }, p: function () { go(at - 1); },
      u: nextOpen, c: function () { $("comment").focus(); }, e: exportLabels
    }[ev.key];
    if (act) { act(); ev.preventDefault(); }
  });
  var notes = $("notes");
  (data.notes || []).forEach(function (n) { notes.appendChild(el("li", "", n)); });
  if (items.length) { show(); } else { $("position").textContent = "No item to audit."; }
  openStore();
})();
