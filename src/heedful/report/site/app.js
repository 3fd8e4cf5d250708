// The site's script (vanilla JavaScript, no dependency): the summary tables, the filters and the episode detail.
// It builds every element with document.createElement and puts texts in with textContent: records hold untrusted
// texts (instructions, model output), and none of them is ever parsed as HTML.
'use strict';
(function () {
  const SITE = window.HEEDFUL_SITE;
  const RUNS = {};
  SITE.runs.forEach(function (run) { RUNS[run.id] = run; });
  const state = { run: SITE.runs.length ? SITE.runs[0].id : null, status: '', correct: '', key: '', value: '',
    search: '', selected: null };

  // Every element is built here; strings only ever become text nodes (never HTML).
  function el(tag, attrs) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      const value = attrs[name];
      if (value === null || value === undefined || value === false) return;
      if (name === 'text') node.textContent = String(value);
      else if (name === 'cls') node.className = value;
      else if (name === 'on') Object.keys(value).forEach(function (ev) { node.addEventListener(ev, value[ev]); });
      else node.setAttribute(name, String(value));
    });
    for (let i = 2; i < arguments.length; i++) add(node, arguments[i]);
    return node;
  }
  function add(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { add(node, c); });
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function finite(v) { return typeof v === 'number' && isFinite(v); }
  // One decimal as Python's format gives it (`heedful report`): a tie of the exact binary value rounds to even,
  // where toFixed would round it up (6.25 -> 6.2, not 6.3).
  function fixed1(x) {
    const sign = x < 0 || Object.is(x, -0) ? '-' : '';
    const exact = /^(\d+)\.(\d)(\d*)$/.exec(Math.abs(x).toFixed(60));
    if (exact && /^50*$/.test(exact[3]) && Number(exact[2]) % 2 === 0) return sign + exact[1] + '.' + exact[2];
    return sign + Math.abs(x).toFixed(1);
  }
  function pct(v) { return finite(v) ? fixed1(100 * v) + '%' : '-'; }
  function points(v) { return finite(v) ? (v >= 0 ? '+' : '') + fixed1(100 * v) : '-'; }
  function interval(lo, hi, signed) {
    if (!finite(lo) || !finite(hi)) return '-';
    const f = signed ? points : function (x) { return fixed1(100 * x); };
    return '[' + f(lo) + ', ' + f(hi) + ']';
  }
  function number(v) {
    if (!finite(v)) return v === null || v === undefined ? '-' : String(v);
    return Number.isInteger(v) ? String(v) : v.toFixed(3);
  }
  function rowValue(row) { return row.group === 'usage' ? number(row.value) : pct(row.value); }
  function plural(n, unit) { return n + ' ' + (n === 1 ? unit : (unit === 'family' ? 'families' : unit + 's')); }
  function json(v) { return JSON.stringify(v, null, 2); }
  function agentLine(run) {
    const args = Object.keys(run.agent_args || {}).map(function (k) {
      return k + '=' + JSON.stringify(run.agent_args[k]);
    });
    const flags = (run.flags || []).length ? ' [' + run.flags.join('; ') + ']' : '';
    return run.agent + (run.model ? ' ' + run.model : '') + (args.length ? ' (' + args.join(', ') + ')' : '') + flags;
  }
  function facts(pairs) {
    const dl = el('dl', { cls: 'facts' });
    pairs.forEach(function (p) { if (p[1] !== null && p[1] !== undefined && p[1] !== '') add(dl, [el('dt',
        { text: p[0] }), el('dd', {}, p[1])]); });
    return dl;
  }
  function value(v) {
    if (v === null || v === undefined) return el('span', { cls: 'note', text: '-' });
    if (typeof v === 'string') return v.indexOf('\n') >= 0 || v.length > 160 ? el('pre', { text: v }) : el('span',
        { text: v });
    if (typeof v !== 'object') return el('span', { text: String(v) });
    if (Array.isArray(v) && v.every(function (x) { return x === null || typeof x !== 'object'; })) {
      return el('span', { text: v.map(String).join(', ') || '(none)' });
    }
    return el('pre', { text: json(v) });
  }
  function folded(v) {
    const lines = v === null || typeof v !== 'object' ? 1 : json(v).split('\n').length;
    if (lines <= 14) return value(v);
    return el('details', {}, el('summary', { text: 'the whole JSON (' + lines + ' lines)' }), value(v));
  }
  function groupsOf(run) {
    const seen = [];
    run.rows.forEach(function (r) { if (r.group !== 'status' && seen.indexOf(r.group) < 0) seen.push(r.group); });
    return seen;
  }

  // ---- summary
  function metricTable(run) {
    const tbody = el('tbody');
    run.rows.filter(function (r) { return r.group !== 'status'; }).forEach(function (r) {
      add(tbody, el('tr', { 'data-run': run.id, 'data-metric': r.metric, 'data-group': r.group,
        'data-value': r.value === null ? '' : r.value },
        el('td', { text: r.metric }), el('td', { text: r.group }),
        el('td', { cls: 'num', 'data-field': 'value', text: rowValue(r) }),
        el('td', { cls: 'num', 'data-field': 'ci', text: interval(r.ci_low, r.ci_high) }),
        el('td', { cls: 'num', 'data-field': 'chance', text: pct(r.chance) }),
        el('td', { cls: 'num', 'data-field': 'n', text: (r.k === null ? '' : r.k + '/') + plural(r.n, r.unit) })));
    });
    const table = el('table', { 'data-table': 'metrics', 'data-run': run.id },
      el('thead', {}, el('tr', {}, ['metric', 'group', 'value', '95% CI', 'chance', 'n'].map(function (h, i) {
        return el('th', { cls: i > 1 ? 'num' : null, text: h });
      }))), tbody);
    const select = el('select', { 'data-filter': 'metric-group',
        on: { change: function () { showGroup(select.value); } } },
      el('option', { value: '', text: 'every group' }), groupsOf(run).map(function (g) { return el('option',
          { value: g, text: g }); }));
    function showGroup(group) {
      Array.prototype.forEach.call(tbody.rows,
          function (tr) { tr.hidden = !!group && tr.getAttribute('data-group') !== group; });
    }
    const first = groupsOf(run).indexOf('all') >= 0 ? 'all' : (groupsOf(run)[0] || '');  // the answer first
    select.value = first;
    showGroup(first);
    return [el('p', {}, el('label', { cls: 'inline' }, 'Metric rows of group ', select)),
      el('div', { cls: 'scroll' }, table)];
  }
  function runCard(run) {
    const counts = Object.keys(run.status_counts).map(function (s) {
      return s + ' ' + run.status_counts[s];
    }).join(', ');
    const options = Object.keys(run.options || {}).length ? JSON.stringify(run.options) : null;
    return el('div', { cls: 'card', 'data-run': run.id },
      el('h3', {}, run.name + ' ', el('span', { cls: 'note', text: run.dir })),
      facts([['suite', run.suite], ['agent', agentLine(run)], ['options', options], ['state', run.state],
        ['records', String(run.records)], ['status', counts], ['correct', run.correct + ' of ' + run.records],
        ['report', run.title]]),
      run.media_note ? el('p', { cls: 'note warn', text: run.media_note }) : null,
      metricTable(run));
  }
  function sideBySide(runs) {
    const keys = [], cells = {};
    runs.forEach(function (run) {
      run.rows.forEach(function (r) {
        if (r.group === 'status' || r.group === 'usage') return;
        const k = r.metric + '\u0000' + r.group;
        if (!cells[k]) { cells[k] = {}; keys.push(k); }
        cells[k][run.id] = r;
      });
    });
    const head = el('tr', {}, el('th', { text: 'metric' }), el('th', { text: 'group' }),
      runs.map(function (run) { return el('th', { cls: 'num', title: agentLine(run), text: run.label || run.name }); }));
    const body = keys.map(function (k) {
      const parts = k.split('\u0000');
      return el('tr', { 'data-metric': parts[0], 'data-group': parts[1] }, el('td', { text: parts[0] }), el('td',
          { text: parts[1] }),
        runs.map(function (run) {
          const r = cells[k][run.id];
          return el('td', { cls: 'num', 'data-run': run.id, text: r ? pct(r.value) + ' ' + interval(r.ci_low,
              r.ci_high) : '-' });
        }));
    });
    return el('div', { cls: 'scroll' }, el('table', { 'data-table': 'side-by-side' }, el('thead', {}, head),
        el('tbody', {}, body)));
  }
  function comparisonTable(c) {
    const a = RUNS[c.a], b = RUNS[c.b];
    const title = el('h3', {}, 'A ' + a.name + ' (' + agentLine(a) + ') vs B ' + b.name + ' (' + agentLine(b) + ')');
    if (c.error) return [title, el('p', { cls: 'error', text: 'no paired comparison: ' + c.error })];
    const body = c.rows.map(function (r) {
      const mc = r.p_value === null ? ''
        : 'b ' + r.mcnemar_b + ', c ' + r.mcnemar_c + ', p ' + r.p_value.toPrecision(3);
      return el('tr', { 'data-metric': r.metric, 'data-group': r.group },
        el('td', { text: r.metric }), el('td', { text: r.group }), el('td', { cls: 'num', text: pct(r.a) }),
        el('td', { cls: 'num', text: pct(r.b) }), el('td', { cls: 'num', 'data-field': 'diff',
            text: points(r.diff) }),
        el('td', { cls: 'num', text: interval(r.ci_low, r.ci_high, true) }), el('td', { cls: 'num',
            text: plural(r.n, r.unit) }),
        el('td', { cls: 'num', text: mc }));
    });
    const head = el('tr', {}, ['metric', 'group', 'A', 'B', 'A - B (pp)', '95% CI', 'n', 'McNemar'].map(function (h,
        i) {
      return el('th', { cls: i > 1 ? 'num' : null, text: h });
    }));
    return [title, el('p', { cls: 'note', text: c.pairing || '' }),
      el('div', { cls: 'scroll' }, el('table', { 'data-table': 'comparison', 'data-a': c.a, 'data-b': c.b },
          el('thead', {}, head), el('tbody', {}, body)))];
  }
  // The suite's figure as `heedful plot` draws it (an SVG under media/), or the note that says why there is none.
  function suiteFigure(suite, runs) {
    const f = SITE.figures.filter(function (x) { return x.suite === suite; })[0];
    if (!f || !f.path) return f ? el('p', { cls: 'note warn', 'data-figure': suite, text: f.note }) : null;
    const names = runs.map(function (run) { return run.name + ' (' + agentLine(run) + ')'; }).join(', ');
    return el('figure', { cls: 'card figure', 'data-figure': suite }, el('img', { src: f.path,
        alt: 'figure of the ' + suite + ' suite: ' + names + (runs.length > 1 ? ' side by side' : '') }));
  }
  // The language-dependence table of one agent's runs under instruction arms (as `heedful report JOB` prints it).
  function languageTable(t) {
    const head = el('tr', {}, ['group', 'arm', 'n', 'score', '95% CI', 'vs given (pp)', '95% CI', 'pairs',
      'followed given words', 'followed scene'].map(function (h, i) {
      return el('th', { cls: i > 1 ? 'num' : null, text: h });
    }));
    const body = t.rows.map(function (r) {
      const followed = r.followed_given !== null;
      return el('tr', { 'data-arm': r.arm, 'data-group': r.group },
        el('td', { text: r.group }), el('td', { text: r.arm }), el('td', { cls: 'num', text: String(r.n) }),
        el('td', { cls: 'num', 'data-field': 'score', text: pct(r.score) }),
        el('td', { cls: 'num', text: interval(r.score_ci[0], r.score_ci[1], false) }),
        el('td', { cls: 'num', 'data-field': 'diff', text: r.diff === null ? '-' : points(r.diff) }),
        el('td', { cls: 'num', text: r.diff === null ? '' : interval(r.diff_ci[0], r.diff_ci[1], true) }),
        el('td', { cls: 'num', text: r.diff === null ? '' : String(r.paired) }),
        el('td', { cls: 'num', 'data-field': 'followed-given', text: followed ? pct(r.followed_given) : '' }),
        el('td', { cls: 'num', text: followed ? pct(r.followed_scene) : '' }));
    });
    return el('div', { cls: 'card' }, el('h3', { text: t.title }),
      el('p', { cls: 'note', text: 'score: Wilson interval; vs given: paired difference on the episodes scored in ' +
        'both arms (cluster bootstrap); followed: under the other arm, the share of episodes that met the shown ' +
        "words' task / the scene's own task" }),
      el('div', { cls: 'scroll' }, el('table', { 'data-table': 'language' }, el('thead', {}, head),
        el('tbody', {}, body))));
  }
  function renderSummary() {
    const root = document.getElementById('summary');
    const suites = [];
    SITE.runs.forEach(function (run) { if (suites.indexOf(run.suite) < 0) suites.push(run.suite); });
    suites.forEach(function (suite) {
      const runs = SITE.runs.filter(function (r) { return r.suite === suite; });
      add(root, el('h2', { text: suite + ' (' + plural(runs.length, 'run') + ')' }));
      add(root, suiteFigure(suite, runs));
      runs.forEach(function (run) { add(root, runCard(run)); });
      if (runs.length > 1) {
        add(root, el('div', { cls: 'card' }, el('h3', { text: 'Side by side' }), sideBySide(runs)));
        const comps = SITE.comparisons.filter(function (c) { return c.suite === suite; });
        add(root, el('div', { cls: 'card' }, el('h3', { text: 'Paired comparisons (first run is A)' }),
          comps.map(comparisonTable)));
      }
      (SITE.language || []).filter(function (t) { return t.suite === suite; }).forEach(function (t) {
        add(root, el('h3', { text: 'Language dependence' }));
        add(root, languageTable(t));
      });
    });
  }

  // ---- episode browser
  function entries() { return state.run ? SITE.episodes[state.run] : []; }
  function matches(e) {
    if (state.status && e.status !== state.status) return false;
    if (state.correct === 'correct' && e.correct !== true) return false;
    if (state.correct === 'wrong' && e.correct !== false) return false;
    if (state.correct === 'unscored' && e.correct !== null) return false;
    if (state.key && state.value && (e.keys || {})[state.key] !== state.value) return false;
    if (state.search) {
      const hay = (e.id + '\n' + (e.instruction || '')).toLowerCase();
      if (hay.indexOf(state.search.toLowerCase()) < 0) return false;
    }
    return true;
  }
  function options(select, values, all) {
    clear(select);
    add(select, el('option', { value: '', text: all }));
    values.forEach(function (v) { add(select, el('option', { value: v, text: v })); });
  }
  function renderFilters() {
    const root = document.getElementById('filters');
    const run = el('select', { id: 'filter-run' }, SITE.runs.map(function (r) {
      return el('option', { value: r.id, text: r.name + ' (' + r.suite + ', ' + r.agent + ')' });
    }));
    const status = el('select', { id: 'filter-status' });
    const correct = el('select', { id: 'filter-correct' }, [['', 'correct and wrong'], ['correct', 'correct'],
      ['wrong', 'wrong'], ['unscored', 'not scored']].map(function (o) { return el('option', { value: o[0],
          text: o[1] }); }));
    const key = el('select', { id: 'filter-key' });
    const val = el('select', { id: 'filter-value' });
    const search = el('input', { id: 'filter-search', type: 'search', placeholder: 'id or instruction' });
    function refreshRun() {
      const es = entries();
      const statuses = [];
      es.forEach(function (e) { if (statuses.indexOf(e.status) < 0) statuses.push(e.status); });
      options(status, statuses, 'every status');
      options(key, RUNS[state.run].keys, 'group by...');
      options(val, [], 'every value');
      state.status = state.key = state.value = '';
      state.selected = null;
    }
    function refreshValues() {
      const vals = [];
      entries().forEach(function (e) {
        const v = (e.keys || {})[state.key];
        if (v !== undefined && vals.indexOf(v) < 0) vals.push(v);
      });
      vals.sort();
      options(val, vals, 'every value');
      state.value = '';
    }
    run.addEventListener('change',
        function () { state.run = run.value; refreshRun(); renderList(); renderDetail(); });
    status.addEventListener('change', function () { state.status = status.value; renderList(); });
    correct.addEventListener('change', function () { state.correct = correct.value; renderList(); });
    key.addEventListener('change', function () { state.key = key.value; refreshValues(); renderList(); });
    val.addEventListener('change', function () { state.value = val.value; renderList(); });
    search.addEventListener('input', function () { state.search = search.value; renderList(); });
    add(root, [el('label', {}, 'Run', run), el('label', {}, 'Status', status), el('label', {}, 'Outcome', correct),
      el('label', {}, 'Group', key, val), el('label', {}, 'Search', search)]);
    if (state.run) refreshRun();
  }
  function renderList() {
    const table = document.getElementById('episode-list');
    const head = table.tHead, body = table.tBodies[0];
    clear(head); clear(body);
    const es = entries();
    const mainName = es.length ? es[0].main.name : 'score';
    const columns = ['episode', 'groups', 'status', 'correct'].concat(mainName === 'correct' ? [] : [mainName]);
    add(head, el('tr', {}, columns.map(function (h) { return el('th', { text: h }); })));
    let shown = 0;
    es.forEach(function (e) {
      const visible = matches(e);
      if (visible) shown++;
      const groups = RUNS[state.run].list_keys.map(function (k) { return (e.keys || {})[k]; }).filter(function (v) {
        return v !== undefined;
      }).join(' / ');
      const verdict = e.correct === null ? '-' : (e.correct ? 'yes' : 'no');
      const tr = el('tr', { 'data-episode': e.id, 'data-status': e.status, 'data-correct': String(e.correct),
        cls: state.selected === e.id ? 'selected' : null,
            on: { click: function () { state.selected = e.id; renderList(); renderDetail(); } } },
        el('td', { cls: 'id', text: e.id }), el('td', { cls: 'groups', text: groups }),
        el('td', { cls: e.status === 'ok' ? 'good' : 'bad', text: e.status }),
        el('td', { cls: e.correct === true ? 'good' : (e.correct === false ? 'bad' : 'note'), text: verdict }),
        mainName === 'correct' ? null : el('td', { cls: 'num', 'data-field': 'main', text: number(e.main.value) }));
      tr.hidden = !visible;
      add(body, tr);
    });
    const count = document.getElementById('list-count');
    count.setAttribute('data-shown', String(shown));
    count.textContent = shown + ' of ' + es.length + ' episodes shown';
  }

  function section(title, content) { return content ? [el('h3', { text: title }), content] : null; }
  function stagesTable(stages) {
    if (!stages.length) return null;
    const yes = function (b) { return el('td', { cls: b ? 'good' : 'bad', text: b ? 'yes' : 'no' }); };
    return el('table', { 'data-table': 'stages' }, el('thead', {}, el('tr', {}, ['stage', 'weight', 'intent',
        'execution', 'reason'].map(function (h) {
      return el('th', { text: h });
    }))), el('tbody', {}, stages.map(function (s) {
      return el('tr', {}, el('td', { text: s.name }), el('td', { cls: 'num', text: number(s.weight) }),
          yes(s.intent), yes(s.execution),
        el('td', { text: s.detail }));
    })));
  }
  function scoresTable(scores) {
    const names = Object.keys(scores || {});
    if (!names.length) return null;
    return el('table', { 'data-table': 'scores' }, el('tbody', {}, names.map(function (k) {
      return el('tr', {}, el('td', { text: k }), el('td', { cls: 'num', text: number(scores[k]) }));
    })));
  }
  function queries(qs) {
    if (!qs.length) return null;
    return el('div', {}, qs.map(function (q, i) {
      if (q === null || typeof q !== 'object') return el('div', { cls: 'qa' }, value(q));
      return el('div', { cls: 'qa' }, el('strong', { text: 'query ' + (i + 1) }), Object.keys(q).map(function (k) {
        return el('div', {}, el('span', { cls: 'note', text: k + ': ' }), value(q[k]));
      }));
    }));
  }
  function media(run, e) {
    if (run.suite !== 'household' && run.suite !== 'tabletop') return null;
    const m = e.media;
    if (m && m.kind === 'image') return el('div', { cls: 'media' }, el('img', { src: m.path,
        alt: 'replay of ' + e.id }));
    if (m && m.kind === 'video') return el('div', { cls: 'media' }, el('video', { src: m.path, controls: 'controls',
        muted: 'muted', preload: 'metadata' }));
    if (m && m.kind === 'note') return el('p', { cls: 'note warn', 'data-media-note': 'episode', text: m.text });
    if (run.media_note) return el('p', { cls: 'note warn', 'data-media-note': 'run', text: run.media_note });
    return el('p', { cls: 'note',
        text: 'no media for this episode: the site was built with --episodes ' + SITE.episodes_option +
      '; rebuild with `heedful view ... --episodes all` to make every episode\'s' +
      (run.suite === 'household' ? ' replay' : ' video') });
  }
  function renderDetail() {
    const root = document.getElementById('detail');
    clear(root);
    const run = RUNS[state.run];
    const e = entries().filter(function (x) { return x.id === state.selected; })[0];
    if (!e) { add(root, el('p', { cls: 'hint',
        text: 'Click an episode to see what the agent saw and did.' })); return; }
    root.setAttribute('data-episode', e.id);
    const verdict = e.correct === null ? 'not scored' : (e.correct ? 'correct' : 'wrong');
    add(root, [
      el('h2', { text: e.id }),
      el('p', {}, el('span', { cls: 'badge ' + (e.status === 'ok' ? 'good' : 'bad'), text: e.status }),
        el('span', { cls: 'badge ' + (e.correct ? 'good' : 'bad'), text: verdict }),
        el('span', { cls: 'note', text: run.name + ', ' + run.suite + ', agent ' + agentLine(run) })),
      e.error ? el('p', { cls: 'error', text: e.error }) : null,
      el('div', { cls: 'instruction', 'data-field': 'instruction',
          text: e.instruction === null ? '(instruction not recorded)' : e.instruction }),
      el('p', { cls: 'chips' }, Object.keys(e.keys || {}).map(function (k) {
        return el('span', { cls: 'chip' }, el('span', { cls: 'note', text: k + ' ' }), e.keys[k]);
      })),
      section('Media', media(run, e)),
      section('Inputs', Object.keys(e.inputs).length ? facts(Object.keys(e.inputs).map(function (k) { return [k,
          value(e.inputs[k])]; })) : null),
      section('Task', e.task || e.observation.length ? facts([['task',
          e.task]].concat(e.observation.map(function (o) { return [o[0], value(o[1])]; }))) : null),
      el('h3', { text: 'Gold vs prediction' }),
      el('div', { cls: 'pair' }, el('div', {}, el('div', { cls: 'note', text: 'gold' }), folded(e.gold)),
        el('div', {}, el('div', { cls: 'note', text: 'prediction' }), folded(e.prediction))),
      section('Stages', stagesTable(e.stages)),
      section('Scores', scoresTable(e.scores)),
      section('What the suite read',
          e.details.length ? facts(e.details.filter(function (d) { return d[0] !== 'stages'; }).map(function (d) {
        return [d[0], value(d[1])];
      })) : null),
      section('Model questions and answers', queries(e.queries)),
      section('Raw model text', e.raw_output === null ? null : el('pre', { 'data-field': 'raw',
          text: e.raw_output })),
      e.prompt ? el('details', {}, el('summary', { text: 'Prompt sent to the model' }), el('pre',
          { text: e.prompt })) : null,
      Object.keys(e.agent_info).length ? el('details', {}, el('summary', { text: 'Agent info' }),
          value(e.agent_info)) : null,
      Object.keys(e.usage).length ? section('Usage', facts(Object.keys(e.usage).map(function (k) { return [k,
          String(e.usage[k])]; }))) : null,
      e.truncated ? el('p', { cls: 'note',
          text: 'texts cut to the record limit: ' + Object.keys(e.truncated).join(', ') }) : null,
    ]);
  }

  function showTab(name) {
    ['summary', 'episodes'].forEach(function (t) {
      document.getElementById(t).hidden = t !== name;
      document.getElementById('tab-' + t).classList.toggle('active', t === name);
    });
  }
  document.getElementById('tab-summary').addEventListener('click', function () { showTab('summary'); });
  document.getElementById('tab-episodes').addEventListener('click', function () { showTab('episodes'); });
  document.getElementById('generated').textContent =
    'built ' + SITE.generated_at + ' from ' + plural(SITE.runs.length, 'run');
  renderSummary();
  renderFilters();
  renderList();
  renderDetail();
})();
