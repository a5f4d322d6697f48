/* gpassk view: the page. Plain JavaScript, no framework, no build step, no network beyond its own folder.

   Data arrive only as <script src="data/KEY.js"> files that call GPASSK.receive(KEY, document) (the contract
   between this page and its back end: docs/viewer.md). Every string from a document is put on the page as text
   (createTextNode, through `inert`): never as markup. Control characters and bidirectional overrides show as
   visible escapes ("\u202e" in a styled span), and a text longer than TEXT_LIMIT characters shows its start
   with a "show all" button, so a hostile generation can neither run nor reorder nor freeze the page. */
(function () {
  "use strict";

  var TEXT_LIMIT = 200000; // characters of a text shown before "show all"
  var MARK_LIMIT = 2000; // escapes drawn as styled spans in one text; after that, as plain text
  var RID = "[a-z0-9-]{1,40}";
  var NUM = "(?:0|[1-9][0-9]*)";
  var ROUTES = [
    [new RegExp("^#?/?$"), showHome],
    [new RegExp("^#/run/(" + RID + ")$"), showMap],
    [new RegExp("^#/run/(" + RID + ")/q/(" + NUM + ")$"), showQuestion],
    [new RegExp("^#/compare/(" + RID + ")/(" + RID + ")$"), showCompare],
  ];
  var VERDICTS = { R: "right", W: "wrong", U: "unresolved", C: "cut" };
  var LEGEND = [["R", "right"], ["W", "wrong"], ["U", "unresolved"], ["C", "cut at the output limit"]];

  // ------------------------------------------------------------------ loading the data documents

  var waiting = Object.create(null); // key -> {resolve, reject, keep}
  var cache = new Map(); // key -> document (not the generation texts: those live in their open fold)
  var CACHE_SIZE = 64;

  function receive(key, doc) {
    var entry = waiting[key];
    if (!entry) return; // nobody asked for it
    delete waiting[key];
    if (entry.keep) {
      cache.set(key, doc);
      var keys = cache.keys();
      while (cache.size > CACHE_SIZE) {
        var oldest = keys.next().value;
        if (oldest !== "index") cache.delete(oldest); // the oldest first; the index stays
      }
    }
    entry.resolve(doc);
  }
  window.GPASSK = Object.freeze({ receive: receive });

  /** The document KEY (built only from validated route parts), loaded once by a script element. */
  function load(key, keep) {
    if (cache.has(key)) return Promise.resolve(cache.get(key));
    if (waiting[key]) return waiting[key].promise;
    var entry = { keep: keep !== false };
    entry.promise = new Promise(function (resolve, reject) { entry.resolve = resolve; entry.reject = reject; });
    waiting[key] = entry;
    var script = document.createElement("script");
    script.src = "data/" + key + ".js";
    function fail(why) {
      script.remove();
      if (waiting[key] === entry) {
        delete waiting[key];
        entry.reject(new Error("data/" + key + ".js " + why));
      }
    }
    script.onload = function () { fail("did not deliver its document"); };
    script.onerror = function () { fail("could not be loaded (not in this export, or the server refused it or is gone: see its log)"); };
    document.head.appendChild(script);
    return entry.promise;
  }

  // ------------------------------------------------------------------ text, made inert

  // C0 controls but tab and newline, DEL, C1 controls, the bidi marks, embeddings, overrides and isolates,
  // the line and paragraph separators, zero-width space and the byte-order mark.
  var UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

  function escapeOf(ch) {
    return "\\u" + ("000" + ch.charCodeAt(0).toString(16)).slice(-4);
  }

  /** A fragment showing `text` literally: text nodes, and each unsafe character as a visible escape. */
  function inert(text) {
    var source = String(text);
    if (source.indexOf("\r\n") >= 0) source = source.replace(/\r\n/g, "\n");
    var fragment = document.createDocumentFragment();
    var last = 0;
    var marks = 0;
    var pending = "";
    var match;
    UNSAFE.lastIndex = 0;
    while ((match = UNSAFE.exec(source)) !== null) {
      pending += source.slice(last, match.index);
      last = match.index + 1;
      if (marks < MARK_LIMIT) {
        if (pending) fragment.appendChild(document.createTextNode(pending));
        pending = "";
        var mark = document.createElement("span");
        mark.className = "esc";
        mark.textContent = escapeOf(match[0]);
        fragment.appendChild(mark);
        marks += 1;
      } else {
        pending += escapeOf(match[0]);
      }
    }
    pending += source.slice(last);
    if (pending) fragment.appendChild(document.createTextNode(pending));
    return fragment;
  }

  /** An element: `cls` its class names, children strings (shown inert) or nodes; null children are skipped. */
  function el(tag, cls) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    for (var a = 2; a < arguments.length; a++) append(node, arguments[a]);
    return node;
  }

  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "string" || typeof child === "number" ? inert(child) : child);
  }

  function link(href, cls) {
    var a = el.apply(null, ["a", cls].concat(Array.prototype.slice.call(arguments, 2)));
    a.setAttribute("href", href);
    return a;
  }

  /** Where to cut `text` near `at`: never inside a surrogate pair or a CRLF. */
  function cutAt(text, at) {
    if (at >= text.length) return text.length;
    var before = text.charCodeAt(at - 1);
    if ((before >= 0xd800 && before <= 0xdbff) || (before === 13 && text.charCodeAt(at) === 10)) return at - 1;
    return at;
  }

  /** Part of a long text, a block of its own: laid out alone, and not at all while off screen. */
  function chunk(text, more) {
    var part = el("span", more ? "chunk more" : "chunk");
    part.appendChild(inert(text));
    return part;
  }

  /** A text in a <pre>: its first TEXT_LIMIT characters, and a button to show the rest, TEXT_LIMIT at a time
      between two frames (a 10 MB line never holds the page for long). */
  function longText(text, cls) {
    var block = el("pre", "text " + (cls || ""));
    var wrapper = el("div", "long", block);
    var shown = cutAt(text, TEXT_LIMIT);
    block.appendChild(chunk(text.slice(0, shown)));
    if (shown >= text.length) return wrapper;
    var said = el("span", null);
    var more = el("button", "show-all", "show all");
    more.type = "button";
    var note = el("p", "truncated", said, more);
    function say() { said.textContent = "Showing the first " + grouped(shown) + " of " + grouped(text.length) + " characters. "; }
    say();
    more.addEventListener("click", function () {
      more.disabled = true;
      more.textContent = "showing…";
      function step() {
        var end = cutAt(text, shown + TEXT_LIMIT);
        block.appendChild(chunk(text.slice(shown, end), true));
        shown = end;
        say();
        if (shown < text.length) window.setTimeout(step, 0);
        else note.remove();
      }
      window.setTimeout(step, 0);
    });
    wrapper.appendChild(note);
    return wrapper;
  }

  // ------------------------------------------------------------------ numbers

  /** One decimal, ties to even as Python's format does (6.25 -> "6.2"), "-" when missing. */
  function fmt(value) {
    if (value === null || value === undefined || typeof value !== "number" || !isFinite(value)) return "-";
    if (Number.isInteger(value * 4) && !Number.isInteger(value * 2) && Math.abs(value) < 1e15) {
      var low = Math.floor(value * 10); // an exact tie at the second decimal: round half to even
      return ((low % 2 === 0 ? low : low + 1) / 10).toFixed(1);
    }
    var text = value.toFixed(1);
    return text === "-0.0" ? "0.0" : text;
  }

  function signed(value) {
    var text = fmt(value);
    return text === "-" || text === "0.0" || text.charAt(0) === "-" ? text : "+" + text;
  }

  function interval(low, high) {
    return low === null || low === undefined || high === null || high === undefined
      ? "" : "[" + fmt(low) + ", " + fmt(high) + "]";
  }

  function grouped(number) {
    return String(number).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  /** The count of right draws G-Pass@k_tau needs, max(ceil(tau k), 1), with tau at its decimal value. */
  function requiredCorrect(k, tau) {
    var text = String(tau);
    if (/e/i.test(text)) return Math.max(Math.ceil(tau * k), 1);
    var parts = text.split(".");
    var digits = parts.length > 1 ? parts[1].length : 0;
    var scale = Math.pow(10, digits);
    var numerator = Math.round(tau * scale) * k; // exact in doubles for any tau written with few digits
    return Math.max(Math.floor((numerator + scale - 1) / scale), 1);
  }

  function tauKey(gpass, tau) {
    var keys = Object.keys(gpass || {});
    for (var i = 0; i < keys.length; i++) if (keys[i] !== "mg" && parseFloat(keys[i]) === tau) return keys[i];
    return null;
  }

  function tauLabel(tau) {
    var text = String(tau);
    return text.indexOf(".") < 0 ? text + ".0" : text;
  }

  // ------------------------------------------------------------------ routing

  var app = document.getElementById("app");
  var trail = document.getElementById("trail");
  var footer = document.getElementById("footer");
  var generation = 0; // the current view's number: a load that finishes after the user moved on is dropped
  var mapStates = Object.create(null); // run id -> the map's sort, threshold, filters and scroll position
  var leaving = null; // called before the view is replaced (the map saves its scroll position)

  function route() {
    generation += 1;
    var mine = generation;
    if (leaving) { leaving(); leaving = null; }
    var hash = location.hash || "#/";
    for (var r = 0; r < ROUTES.length; r++) {
      var match = ROUTES[r][0].exec(hash);
      if (match) {
        var view = el("div", "view");
        var args = [view].concat(match.slice(1));
        app.setAttribute("aria-busy", "true");
        ROUTES[r][1].apply(null, args).then(function () {
          if (mine !== generation) return;
          document.title = view.title || "gpassk view";
          setTrail(view.trail || []);
          if (view.index) setFooter(view.index);
          app.replaceChildren(view);
          app.removeAttribute("aria-busy");
          if (view.afterShow) view.afterShow();
          if (window.performance && performance.mark) performance.mark("gpassk-view-shown"); // for measuring
        }, function (error) {
          if (mine !== generation) return;
          setTrail([]);
          app.replaceChildren(el("p", "error", String(error && error.message ? error.message : error)));
          app.removeAttribute("aria-busy");
        });
        return;
      }
    }
    app.replaceChildren(el("p", "error", "No such view: " + hash.slice(0, 200)));
  }

  function setTrail(parts) {
    trail.replaceChildren();
    parts.forEach(function (part) { trail.appendChild(el("span", "sep", " › ")); append(trail, part); });
  }

  function runOf(index, rid) {
    for (var r = 0; r < index.runs.length; r++) if (index.runs[r].id === rid) return index.runs[r];
    return null;
  }

  function setFooter(index) {
    footer.replaceChildren(el("span", null, "Generated by " + (index.generated_by || "gpassk-opencompass") +
      " (gpassk view). Everything on this page comes from the files beside it."));
  }

  // ------------------------------------------------------------------ #/ : runs and leaderboard

  function showHome(view) {
    return load("index").then(function (index) {
      view.title = index.title + " — gpassk view";
      view.trail = [];
      view.index = index;
      view.appendChild(el("h1", null, index.title));
      if (index.leaderboard && index.leaderboard.tables.length) view.appendChild(leaderboardSection(index));
      view.appendChild(runsSection(index));
    });
  }

  function leaderboardSection(index) {
    var board = index.leaderboard;
    var section = el("section", "board",
      el("h2", null, "Leaderboard"),
      el("p", "hint", "G-Pass@" + board.k + "_τ, mG-Pass@" + board.k + " and greedy accuracy (%) with their " +
        "intervals. ≈ on the line between two rows: their order is not significant. Click a model to open its run."));
    board.tables.forEach(function (table) {
      section.appendChild(el("h3", null, table.benchmark));
      var head = el("tr", null, el("th", "label", "LLMs"));
      table.columns.forEach(function (column) { head.appendChild(el("th", null, column)); });
      head.appendChild(el("th", null, "Cut"));
      head.appendChild(el("th", "measured", "Measured"));
      var body = el("tbody");
      var notes = [];
      table.rows.forEach(function (row) {
        var target = row.runs && (row.runs.sampled || row.runs.greedy);
        var name = el("th", "label", target ? link("#/run/" + target, "run-link", row.label) : row.label);
        name.setAttribute("scope", "row");
        if (row.runs && row.runs.sampled && row.runs.greedy) {
          name.appendChild(el("span", "also", " ", link("#/run/" + row.runs.greedy, "greedy-link", "greedy")));
        }
        if (row.warnings && row.warnings.length) {
          name.appendChild(el("span", "warn-mark", " ‡"));
          row.warnings.forEach(function (warning) { notes.push(warning); });
        }
        if (row.tied_with_next) {
          var mark = el("span", "order-mark", "≈");
          mark.title = "the order of this row and the next is not significant";
          name.appendChild(mark);
        }
        var tr = el("tr", row.tied_with_next ? "order-uncertain" : null, name);
        table.columns.forEach(function (column) {
          var cell = (row.cells || {})[column] || {};
          var ci = interval(cell.low, cell.high);
          tr.appendChild(el("td", cell.value === null || cell.value === undefined ? "missing" : null,
            fmt(cell.value), ci ? el("span", "ci", ci) : null));
        });
        var cut = row.cut || "-";
        tr.appendChild(el("td", /⚠/.test(cut) ? "cut warned" : "cut", cut));
        tr.appendChild(el("td", "measured", row.measured || "-"));
        body.appendChild(tr);
      });
      section.appendChild(el("table", "leaderboard", el("thead", null, head), body));
      if (notes.length) section.appendChild(el("div", "notes", notes.map(function (n) { return el("p", null, "‡ " + n); })));
    });
    return section;
  }

  function cutText(cut) {
    if (!cut) return "-";
    return (cut.exact ? "" : "≥ ") + cut.count + " of " + cut.total + (cut.exact ? " (recorded)" : " (from the text)");
  }

  function metricsList(run) {
    var list = el("span", "metrics");
    Object.keys(run.metrics || {}).forEach(function (key) {
      var bounds = (run.intervals || {})[key];
      list.appendChild(el("span", "metric", el("span", "key", key), " ", fmt(run.metrics[key]),
        bounds ? el("span", "ci", interval(bounds[0], bounds[1])) : null));
    });
    return list;
  }

  function runsSection(index) {
    var section = el("section", "runs", el("h2", null, "Runs"));
    if (!index.runs.length) { section.appendChild(el("p", "hint", "No runs.")); return section; }
    var head = el("tr", null);
    ["Run", "Benchmark", "Kind", "Claims", "n", "k", "Metrics (%)", "Cut", "Unresolved"].forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    var body = el("tbody");
    index.runs.forEach(function (run) {
      var label = el("td", "label", link("#/run/" + run.id, "run-link", run.label), el("div", "source", run.source || ""));
      var claims = el("td", "claims", (run.claims || []).map(function (c) { return el("div", "claim", c); }));
      var tr = el("tr", null, label, el("td", null, run.benchmark || "-"), el("td", "kind", run.kind), claims,
        el("td", "num", run.n === null || run.n === undefined ? (run.design ? run.design.n1 + "–" + run.design.n : "-") : String(run.n)),
        el("td", "num", (run.k || []).join(", ")), el("td", null, metricsList(run)),
        el("td", "num cut", cutText(run.cut)), el("td", "num" + (run.unresolved ? " flag" : ""), String(run.unresolved || 0)));
      tr.dataset.run = run.id;
      body.appendChild(tr);
    });
    section.appendChild(el("table", "runs-table", el("thead", null, head), body));
    if (index.pairs && index.pairs.length) section.appendChild(compareControl(index));
    return section;
  }

  function compareControl(index) {
    var select = el("select", "pair");
    select.setAttribute("aria-label", "two runs to compare");
    index.pairs.forEach(function (pair, position) {
      var a = runOf(index, pair[0]);
      var b = runOf(index, pair[1]);
      var option = el("option", null, (a ? a.label : pair[0]) + "  ↔  " + (b ? b.label : pair[1]));
      option.value = String(position);
      select.appendChild(option);
    });
    var go = link("#/compare/" + index.pairs[0][0] + "/" + index.pairs[0][1], "button compare-link", "compare");
    select.addEventListener("change", function () {
      var pair = index.pairs[Number(select.value)];
      go.setAttribute("href", "#/compare/" + pair[0] + "/" + pair[1]);
    });
    return el("p", "compare-control", "Compare two runs on the same questions: ", select, " ", go);
  }

  // ------------------------------------------------------------------ #/run/RID : the stability map

  function showMap(view, rid) {
    return Promise.all([load("index"), load("runs/" + rid + "/map")]).then(function (docs) {
      var index = docs[0];
      var map = docs[1];
      var run = runOf(index, rid) || { id: rid, label: rid, claims: [] };
      view.title = run.label + " — stability map";
      view.trail = [el("span", null, run.label)];
      view.index = index;
      buildMap(view, index, run, map);
    });
  }

  function mapState(map) {
    var state = mapStates[map.run];
    if (!state) {
      var taus = map.thresholds || [];
      state = mapStates[map.run] = {
        sort: "cn", descending: true, tau: taus.indexOf(0.5) >= 0 ? 0.5 : taus.length ? taus[0] : null,
        unstable: false, never: false, cut: false, unresolved: false, disagree: false, subset: "", search: "",
        scroll: 0,
      };
    }
    return state;
  }

  function runHeader(run) {
    var facts = [run.benchmark, run.kind, run.n !== null && run.n !== undefined ? "n = " + run.n : null,
      run.k && run.k.length ? "k = " + run.k.join(", ") : null, run.judge ? "judge: " + run.judge : null,
      run.questions !== undefined ? run.questions + " questions" : null].filter(Boolean);
    return el("header", "run-head", el("h1", null, run.label), el("p", "facts", facts.join(" · ")),
      (run.claims || []).length ? el("ul", "claims", run.claims.map(function (c) { return el("li", null, c); })) : null);
  }

  function buildMap(view, index, run, map) {
    var state = mapState(map);
    var k = map.k;
    var widest = 0;
    map.questions.forEach(function (q) { widest = Math.max(widest, (q.cells || "").length); });
    var rows = map.questions.map(function (q) { return mapRow(map, q, widest); });
    var subsets = [];
    map.questions.forEach(function (q) { if (q.subset !== null && q.subset !== undefined && subsets.indexOf(q.subset) < 0) subsets.push(q.subset); });
    var anyDisagree = map.questions.some(function (q) { return q.disagree !== null && q.disagree !== undefined; });

    // controls
    var sort = el("select", "sort");
    sort.setAttribute("aria-label", "sort by");
    var sorts = [["cn", "c/n"]];
    var gkeys = Object.keys((map.questions[0] || {}).gpass || {});
    gkeys.filter(function (key) { return key !== "mg"; }).forEach(function (key) {
      sorts.push(["g:" + key, "G-Pass@" + k + "_" + key]);
    });
    if (gkeys.indexOf("mg") >= 0) sorts.push(["g:mg", "mG-Pass@" + k]);
    sorts.push(["cut", "cut generations"], ["i", "question order"]);
    sorts.forEach(function (s) { var o = el("option", null, s[1]); o.value = s[0]; sort.appendChild(o); });
    sort.value = state.sort;
    var direction = el("button", "direction");
    direction.type = "button";
    var tau = el("select", "tau");
    tau.setAttribute("aria-label", "threshold tau");
    (map.thresholds || []).forEach(function (t) { var o = el("option", null, "τ = " + tauLabel(t)); o.value = String(t); tau.appendChild(o); });
    if (state.tau !== null) tau.value = String(state.tau);
    var tauNote = el("span", "tau-note");

    function box(name, text, disabled) {
      var input = el("input");
      input.type = "checkbox";
      input.name = name;
      input.checked = state[name];
      input.disabled = !!disabled;
      input.addEventListener("change", function () { state[name] = input.checked; apply(); });
      return el("label", "filter" + (disabled ? " disabled" : ""), input, " " + text);
    }
    var subset = null;
    if (subsets.length) {
      subset = el("select", "subset", el("option", null, "all subsets"));
      subset.firstChild.value = "";
      subset.setAttribute("aria-label", "subset");
      subsets.forEach(function (s) { var o = el("option", null, s); o.value = s; subset.appendChild(o); });
      subset.value = state.subset;
      subset.addEventListener("change", function () { state.subset = subset.value; apply(); });
    }
    var search = el("input", "search");
    search.type = "search";
    search.placeholder = "search id and text";
    search.setAttribute("aria-label", "search the questions' ids and texts");
    search.value = state.search;
    search.addEventListener("input", function () { state.search = search.value; apply(); });

    var count = el("p", "count");
    var list = el("div", "map");
    list.setAttribute("role", "list");
    var divider = el("div", "tau-line");
    var spacer = document.createElement("canvas"); // as wide as the rows' canvases: the header's column lines up
    spacer.width = Math.max(widest * (CELL + GAP) - GAP, 1);
    spacer.height = 1;
    var heading = el("div", "map-head", el("span", null, "question"), el("span", "num", "c/n"), el("span", null, ""),
      el("span", "num gp-head", ""), el("span", "cells-head", el("span", null, "generations, in draw order"), spacer),
      el("span", null, "text"));

    sort.addEventListener("change", function () {
      state.sort = sort.value;
      state.descending = state.sort !== "i";
      apply();
    });
    direction.addEventListener("click", function () { state.descending = !state.descending; apply(); });
    tau.addEventListener("change", function () { state.tau = parseFloat(tau.value); apply(); });

    function keyOf(row) {
      if (state.sort === "cn") return row.q.n ? row.q.c / row.q.n : -1;
      if (state.sort === "cut") return row.cut;
      if (state.sort === "i") return row.q.i;
      var value = (row.q.gpass || {})[state.sort.slice(2)];
      return typeof value === "number" ? value : -1;
    }

    function apply() {
      var needle = state.search.trim().toLowerCase();
      var required = state.tau === null ? null : requiredCorrect(k, state.tau);
      var key = state.tau === null ? null : tauKey((map.questions[0] || {}).gpass, state.tau);
      var shown = rows.filter(function (row) {
        var q = row.q;
        if (state.unstable && !(q.c > 0 && q.c < q.n)) return false;
        if (state.never && q.c !== 0) return false;
        if (state.cut && !row.cut) return false;
        if (state.unresolved && !row.unresolved) return false;
        if (state.disagree && !(q.disagree > 0)) return false;
        if (state.subset && q.subset !== state.subset) return false;
        if (needle && row.haystack.indexOf(needle) < 0) return false;
        return true;
      });
      var sign = state.descending ? -1 : 1;
      shown.sort(function (a, b) {
        var x = keyOf(a), y = keyOf(b);
        return x !== y ? sign * (x < y ? -1 : 1) : a.q.i - b.q.i;
      });
      var nodes = [];
      var dividerAt = -1;
      shown.forEach(function (row, position) {
        var q = row.q;
        var clears = required !== null && q.n > 0 && q.c * k >= required * q.n;
        row.node.classList.toggle("clears", clears);
        row.mark.textContent = required === null ? "" : clears ? "✓" : "·";
        row.gp.textContent = key === null ? "" : fmt((q.gpass || {})[key]);
        if (state.sort === "cn" && position > 0 && dividerAt < 0 && required !== null) {
          var before = shown[position - 1].q;
          var beforeClears = before.n > 0 && before.c * k >= required * before.n;
          if (beforeClears !== clears) dividerAt = position;
        }
        nodes.push(row.node);
      });
      if (dividerAt >= 0) {
        divider.textContent = "c/n = " + required + "/" + k + " (τ = " + tauLabel(state.tau) + ": " + required +
          " of " + k + " draws right)";
        nodes.splice(dividerAt, 0, divider);
      }
      nodes.unshift(heading);
      heading.querySelector(".gp-head").textContent = key === null ? "" : "G-Pass";
      list.replaceChildren.apply(list, nodes);
      count.textContent = shown.length + " of " + rows.length + " questions";
      direction.textContent = state.descending ? "↓ descending" : "↑ ascending";
      var metric = "G-Pass@" + k + "_" + tauLabel(state.tau);
      tauNote.textContent = required === null ? "" : "✓: c/n ≥ " + required + "/" + k + " (" + metric + " needs " + required +
        " of k = " + k + " draws right); beside it, the question's " + metric + " (%)";
    }

    var legend = el("p", "legend", LEGEND.map(function (entry) {
      return el("span", "legend-item", el("i", "cell c-" + entry[0]), " " + entry[1]);
    }));
    var filters = el("div", "filters",
      box("unstable", "unstable only (0 < c < n)"), box("never", "never right"), box("cut", "has cut"),
      box("unresolved", "has unresolved"), box("disagree", "judges disagree", !anyDisagree), subset, search);
    view.appendChild(runHeader(run));
    view.appendChild(el("div", "controls", el("label", null, "sort by ", sort), " ", direction, " ",
      el("label", null, "threshold ", tau), " ", tauNote));
    view.appendChild(filters);
    view.appendChild(legend);
    view.appendChild(count);
    view.appendChild(list);
    apply();
    view.afterShow = function () {
      window.scrollTo(0, state.scroll || 0);
      leaving = function () { state.scroll = window.scrollY; }; // back from a question: where the user was
    };
  }

  var CELL = 7; // a generation's cell: CELL px wide, GAP px apart, HEIGHT px high
  var GAP = 1;
  var HEIGHT = 13;
  var palette = null;

  /** The verdict colours, from the style sheet (its custom properties): one home for them. */
  function colours() {
    if (!palette) {
      var style = getComputedStyle(document.documentElement);
      palette = { R: "--right", W: "--wrong", U: "--unresolved", C: "--cut", X: "--other" };
      Object.keys(palette).forEach(function (ch) { palette[ch] = style.getPropertyValue(palette[ch]).trim(); });
    }
    return palette;
  }

  /** A row's cells: one canvas, one rectangle per generation in draw order (238 x 48 cells stay cheap). */
  function cellStrip(text, widest) {
    var canvas = document.createElement("canvas");
    canvas.className = "cells";
    canvas.width = Math.max(widest * (CELL + GAP) - GAP, 1);
    canvas.height = HEIGHT;
    var context = canvas.getContext("2d");
    var fill = colours();
    for (var j = 0; j < text.length; j++) {
      var ch = text.charAt(j);
      context.fillStyle = fill[VERDICTS[ch] ? ch : "X"];
      context.fillRect(j * (CELL + GAP), 0, CELL, HEIGHT);
    }
    canvas.addEventListener("mousemove", function (event) {
      var j = Math.floor(event.offsetX / (CELL + GAP));
      var ch = text.charAt(j);
      canvas.title = j < text.length ? "generation " + j + ": " + (VERDICTS[ch] || "unknown") : "";
    });
    return canvas;
  }

  function mapRow(map, q, widest) {
    var text = q.cells || "";
    var cut = 0;
    var unresolved = 0;
    for (var j = 0; j < text.length; j++) {
      var ch = text.charAt(j);
      if (ch === "C") cut += 1; else if (ch === "U") unresolved += 1;
    }
    var cells = cellStrip(text, widest);
    cells.setAttribute("role", "img");
    cells.setAttribute("aria-label", q.c + " right of " + q.n + (cut ? ", " + cut + " cut" : "") +
      (unresolved ? ", " + unresolved + " unresolved" : ""));
    cells.dataset.cells = text;
    var mark = el("span", "mark");
    var gp = el("span", "gp num");
    var node = link("#/run/" + map.run + "/q/" + q.i, "qrow",
      el("span", "qid", q.id), el("span", "cn num", q.c + "/" + q.n), mark, gp, cells, el("span", "snip", q.snippet || ""));
    node.setAttribute("role", "listitem");
    node.dataset.i = String(q.i);
    return { q: q, node: node, mark: mark, gp: gp, cut: cut, unresolved: unresolved,
      haystack: (String(q.id) + "\n" + (q.snippet || "")).toLowerCase() };
  }

  // ------------------------------------------------------------------ #/run/RID/q/I : a question

  function showQuestion(view, rid, i) {
    return Promise.all([load("index"), load("runs/" + rid + "/map"), load("runs/" + rid + "/q/" + i)]).then(function (docs) {
      var index = docs[0];
      var map = docs[1];
      var q = docs[2];
      var run = runOf(index, rid) || { id: rid, label: rid };
      view.title = q.id + " — " + run.label;
      view.trail = [link("#/run/" + rid, "map-link", run.label), el("span", null, "question " + q.id)];
      view.index = index;
      buildQuestion(view, run, map, q);
      view.afterShow = function () { window.scrollTo(0, 0); };
    });
  }

  function answerText(answer) {
    if (answer === null || answer === undefined) return "no answer";
    var text = String(answer);
    return text.length > 120 ? text.slice(0, 120) + "…" : text;
  }

  /** "42 × 31, 41 × 9, no answer × 8 (cut)": the final answers, most frequent first. */
  function distributionSentence(answers) {
    return answers.map(function (a) {
      var cut = a.cut === a.count && a.cut > 0 ? " (cut)" : a.cut > 0 ? " (" + a.cut + " cut)" : "";
      return answerText(a.answer) + " × " + a.count + cut;
    }).join(", ");
  }

  function verdictOf(right) {
    return right === true ? "right" : right === false ? "wrong" : "unresolved";
  }

  /** The questions before and after this one in question order (links), when the map has them. */
  function neighbours(map, q) {
    var position = -1;
    for (var p = 0; p < map.questions.length; p++) if (map.questions[p].i === q.i) position = p;
    var previous = position > 0 ? map.questions[position - 1] : null;
    var next = position >= 0 && position + 1 < map.questions.length ? map.questions[position + 1] : null;
    return el("p", "neighbours",
      previous ? link("#/run/" + map.run + "/q/" + previous.i, "previous", "← previous") : null,
      previous && next ? " · " : null,
      next ? link("#/run/" + map.run + "/q/" + next.i, "next", "next →") : null);
  }

  function buildQuestion(view, run, map, q) {
    var k = map.k;
    view.appendChild(neighbours(map, q));
    view.appendChild(el("header", "question-head",
      el("h1", null, "Question ", el("span", "qid", q.id)),
      el("p", "facts", [q.subset ? "subset " : null, q.subset ? el("span", null, q.subset) : null, q.subset ? " · " : null,
        q.c + " right of " + q.n + " generations (c/n = " + (q.n ? fmt(100 * q.c / q.n) : "-") + " %)"])));

    view.appendChild(el("h2", null, "Text"));
    view.appendChild(q.text === null || q.text === undefined ? el("p", "hint", "The question's text is not known.") : longText(q.text, "question-text"));
    view.appendChild(el("h2", null, "Gold answer"));
    view.appendChild(q.gold === null || q.gold === undefined ? el("p", "hint", "not known") : longText(q.gold, "gold"));

    var metrics = el("tbody");
    (q.gpass || []).forEach(function (g) {
      metrics.appendChild(el("tr", null, el("th", null, "G-Pass@" + k + "_" + tauLabel(g.tau)),
        el("td", "num", fmt(g.value)), el("td", "ci", interval(g.low, g.high))));
    });
    if (q.mg !== null && q.mg !== undefined) {
      metrics.appendChild(el("tr", null, el("th", null, "mG-Pass@" + k), el("td", "num", fmt(q.mg)), el("td", "ci", "")));
    }
    view.appendChild(el("h2", null, "G-Pass of this question (%)"));
    view.appendChild(el("table", "gpass-table", el("thead", null, el("tr", null, el("th", null, "metric"), el("th", null, "value"),
      el("th", null, "interval"))), metrics));

    view.appendChild(el("h2", null, "Final answers"));
    view.appendChild(el("p", "distribution", distributionSentence(q.answers || [])));
    var answers = el("tbody");
    (q.answers || []).forEach(function (a) {
      answers.appendChild(el("tr", null, el("td", "answer" + (a.answer === null ? " none" : ""), answerText(a.answer)),
        el("td", "num", String(a.count)), el("td", "num", q.n ? fmt(100 * a.count / q.n) : "-"),
        el("td", a.answer === null ? "verdict-text" : "verdict-text t-" + verdictOf(a.right), a.answer === null ? "-" : verdictOf(a.right)),
        el("td", "num", String(a.cut || 0))));
    });
    view.appendChild(el("table", "answers-table", el("thead", null, el("tr", null, el("th", null, "answer"),
      el("th", null, "count"), el("th", null, "share (%)"), el("th", null, "verdict"), el("th", null, "cut"))), answers));

    view.appendChild(el("h2", null, "Generations"));
    view.appendChild(el("p", "hint", "Open a generation to load its text."));
    var gens = el("div", "generations");
    (q.generations || []).forEach(function (g) { gens.appendChild(generationFold(run.id, q, g)); });
    view.appendChild(gens);
  }

  function generationFold(rid, q, g) {
    var verdict = g.cut ? "cut" : g.verdict;
    var summary = el("summary", null,
      el("span", "j", "#" + g.j), " ",
      el("span", "verdict v-" + g.verdict, g.verdict), g.cut ? el("span", "verdict v-cut", "cut") : null, " ",
      el("span", "answer" + (g.answer === null ? " none" : ""), answerText(g.answer)), " ",
      el("span", "finish", "finish: " + (g.finish_reason || "not recorded")), " ",
      el("span", "chars", g.chars === null || g.chars === undefined ? "" : grouped(g.chars) + " chars"));
    var body = el("div", "gen-body");
    var fold = el("details", "gen " + verdict, summary, body);
    fold.dataset.j = String(g.j);
    var opened = false;
    fold.addEventListener("toggle", function () {
      if (!fold.open || opened) return;
      opened = true;
      if (g.judge_reply !== null && g.judge_reply !== undefined) {
        body.appendChild(el("div", "judge", el("h3", null, "Judge's reply"), longText(g.judge_reply, "reply")));
      }
      if (!g.has_text) {
        body.insertBefore(el("p", "hint", "No text: the run was given without its generations."), body.firstChild);
        return;
      }
      var slot = el("p", "loading", "Loading…");
      body.insertBefore(slot, body.firstChild);
      load("runs/" + rid + "/q/" + q.i + "/g/" + g.j, false).then(function (doc) {
        slot.replaceWith(longText(doc.text, "generation"));
      }, function (error) {
        slot.replaceWith(el("p", "error", String(error.message || error)));
        opened = false;
      });
    });
    return fold;
  }

  // ------------------------------------------------------------------ #/compare/A/B : two runs

  function showCompare(view, a, b) {
    return Promise.all([load("index"), load("compare/" + a + "/" + b)]).then(function (docs) {
      var index = docs[0];
      var cmp = docs[1];
      var runA = runOf(index, a) || { id: a, label: a };
      var runB = runOf(index, b) || { id: b, label: b };
      view.title = runA.label + " vs " + runB.label + " — gpassk view";
      view.trail = [el("span", null, "compare")];
      view.index = index;
      buildCompare(view, runA, runB, cmp);
    });
  }

  function pairedBlock(paired, runA, runB) {
    if (!paired) return el("p", "hint paired", "No paired interval for these runs.");
    var level = String(Math.round((paired.level <= 1 ? paired.level * 100 : paired.level) * 1000) / 1000);
    var verdict;
    if (paired.verdict === "cannot separate") {
      verdict = el("p", "verdict-line cannot", "Cannot separate: the " + level + " % interval of the difference covers 0, " +
        "so neither run is named better on " + paired.metric + ".");
    } else {
      var winner = paired.verdict === "a" ? runA : runB;
      verdict = el("p", "verdict-line winner", el("span", null, winner.label), " is ahead on " + paired.metric +
        " (the " + level + " % interval of the difference excludes 0).");
    }
    return el("div", "paired", verdict, el("p", "sentence", paired.sentence));
  }

  function buildCompare(view, runA, runB, cmp) {
    view.appendChild(el("h1", null, "Two runs compared"));
    view.appendChild(el("p", "facts", "A: ", link("#/run/" + runA.id, "run-link", runA.label), " · B: ",
      link("#/run/" + runB.id, "run-link", runB.label), " · " + cmp.metric + ", k = " + cmp.k));
    view.appendChild(el("p", "facts", cmp.shared + " shared questions" +
      (cmp.only_a || cmp.only_b ? "; " + cmp.only_a + " only in A, " + cmp.only_b + " only in B" : "")));
    view.appendChild(pairedBlock(cmp.paired, runA, runB));

    var only = el("input");
    only.type = "checkbox";
    only.name = "changed";
    var order = el("select", "order");
    order.setAttribute("aria-label", "order");
    [["i", "question order"], ["dg", "Δ G-Pass"], ["dcn", "Δ c/n"]].forEach(function (s) {
      var o = el("option", null, s[1]); o.value = s[0]; order.appendChild(o);
    });
    var count = el("p", "count");
    var body = el("tbody");
    var rows = cmp.questions.map(function (q, position) {
      var mark = q.change === "improved" ? "▲ improved" : q.change === "regressed" ? "▼ regressed" : "=";
      var tr = el("tr", "change-" + q.change,
        el("td", "qid", link("#/run/" + runA.id + "/q/" + q.i_a, null, q.id)),
        el("td", "num", link("#/run/" + runA.id + "/q/" + q.i_a, "a-link", q.c_a + "/" + q.n_a)),
        el("td", "num", link("#/run/" + runB.id + "/q/" + q.i_b, "b-link", q.c_b + "/" + q.n_b)),
        el("td", "num", signed(q.d_cn)), el("td", "num", signed(q.d_gpass)), el("td", "mark", mark));
      return { q: q, node: tr, position: position };
    });
    function apply() {
      var shown = rows.filter(function (r) { return !only.checked || r.q.change !== "same"; });
      var by = order.value;
      shown.sort(function (x, y) {
        if (by === "i") return x.position - y.position;
        var a = by === "dg" ? x.q.d_gpass : x.q.d_cn;
        var b = by === "dg" ? y.q.d_gpass : y.q.d_cn;
        return a !== b ? b - a : x.position - y.position;
      });
      body.replaceChildren.apply(body, shown.map(function (r) { return r.node; }));
      count.textContent = shown.length + " of " + rows.length + " questions";
    }
    only.addEventListener("change", apply);
    order.addEventListener("change", apply);
    view.appendChild(el("div", "controls", el("label", "filter", only, " show only changed"), " ",
      el("label", null, "order ", order)));
    view.appendChild(count);
    var head = el("tr", null);
    ["question", "c/n A", "c/n B", "Δ c/n (points)", "Δ " + cmp.metric + " (points)", "change"].forEach(function (h, position) {
      head.appendChild(el("th", position === 0 || position === 5 ? "text" : null, h));
    });
    view.appendChild(el("table", "compare-table", el("thead", null, head), body));
    apply();
  }

  window.addEventListener("hashchange", route);
  document.documentElement.classList.add("js");
  route();
})();
