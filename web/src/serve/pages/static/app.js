// bugrank's only script, served from /static/app.js so that the Content-Security-Policy
// can forbid every inline script. Each part acts only on a page that has its element.

// The analysis page while it runs: poll the API and move the progress bar.
(function () {
  const live = document.getElementById('live');
  if (!live) return;
  const id = live.dataset.analysis;
  (function poll() {
    fetch('/api/analyses/' + id, {credentials: 'same-origin'}).then(r => r.json()).then(v => {
      if (v.analysis.status !== 'queued' && v.analysis.status !== 'running') { location.reload(); return; }
      const p = v.progress;
      if (p) {
        // No share is known while searching: the bar then only shows that work goes on.
        const bar = document.getElementById('bar');
        if (p.percent === null || p.percent === undefined) bar.removeAttribute('value'); else bar.value = p.percent;
        document.getElementById('phase').textContent = p.text + (p.remaining ? ' · ' + p.remaining : '');
      }
      document.getElementById('status').textContent = v.analysis.status;
      setTimeout(poll, 500);
    }).catch(() => setTimeout(poll, 2000));
  })();
})();

// The experiment page: the ticked batches go into one field.
(function () {
  const form = document.getElementById('experiment');
  if (!form) return;
  form.addEventListener('submit', function () {
    this.batches.value = Array.from(document.querySelectorAll('input.batch:checked')).map(b => b.value).join(',');
  });
})();

// Forms that undo something for good (revoking a student's link) ask first.
document.querySelectorAll('form[data-confirm]').forEach(function (form) {
  form.addEventListener('submit', function (event) {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
  });
});

// Tables marked `sortable`: a click on a heading sorts by that column (numbers as numbers,
// again to reverse), and the search field naming the table keeps the rows that contain its
// text. The state lives in the address (`<table>-sort=<column>` with a leading `-` when
// reversed, `<table>-q=<text>`), so a reload, a bookmark or a shared link shows the same.
(function () {
  const params = new URLSearchParams(location.search);
  const save = function () { history.replaceState(null, '', '?' + params.toString() + location.hash); };
  const value = function (row, column) {
    const text = row.cells[column] ? row.cells[column].textContent.trim() : '';
    const number = parseFloat(text.replace(/^#/, ''));
    return isNaN(number) ? text.toLowerCase() : number;
  };
  document.querySelectorAll('table.sortable[id]').forEach(function (table) {
    const header = table.rows[0];
    const body = table.rows[0].parentNode;
    const rows = Array.from(table.rows).slice(1);
    const sort = function (spec) {
      const reversed = spec.startsWith('-');
      const column = parseInt(reversed ? spec.slice(1) : spec, 10);
      if (isNaN(column) || !header.cells[column]) return;
      const sorted = rows.slice().sort(function (a, b) {
        const x = value(a, column), y = value(b, column);
        const order = typeof x === typeof y ? (x < y ? -1 : x > y ? 1 : 0) : (typeof x === 'number' ? -1 : 1);
        return reversed ? -order : order;
      });
      sorted.forEach(function (row) { body.appendChild(row); });
      Array.from(header.cells).forEach(function (th, i) {
        th.setAttribute('aria-sort', i === column ? (reversed ? 'descending' : 'ascending') : 'none');
      });
    };
    Array.from(header.cells).forEach(function (th, i) {
      th.style.cursor = 'pointer';
      th.title = (th.title ? th.title + '; ' : '') + 'click to sort';
      th.addEventListener('click', function () {
        const spec = params.get(table.id + '-sort') === String(i) ? '-' + i : String(i);
        params.set(table.id + '-sort', spec);
        save();
        sort(spec);
      });
    });
    const filter = function (text) {
      const wanted = text.toLowerCase();
      rows.forEach(function (row) { row.hidden = wanted !== '' && !row.textContent.toLowerCase().includes(wanted); });
    };
    document.querySelectorAll('input[data-filter="' + table.id + '"]').forEach(function (input) {
      input.value = params.get(table.id + '-q') || '';
      input.addEventListener('input', function () {
        if (input.value) params.set(table.id + '-q', input.value); else params.delete(table.id + '-q');
        save();
        filter(input.value);
      });
    });
    if (params.get(table.id + '-sort')) sort(params.get(table.id + '-sort'));
    if (params.get(table.id + '-q')) filter(params.get(table.id + '-q'));
  });
})();

// A link to a bug list (#bugs-<id>, from the ranking) opens it, on arrival and on a click.
(function () {
  const open = function () {
    if (!location.hash.startsWith('#bugs-')) return;
    const list = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (list && list.tagName === 'DETAILS') { list.open = true; list.scrollIntoView(); }
  };
  window.addEventListener('hashchange', open);
  open();
})();

// The answer to an LMS's deep linking request: the form posts itself to the LMS.
(function () {
  const form = document.querySelector('form[data-autosubmit]');
  if (form) form.submit();
})();

// Deadline fields (`data-utc`): the page gives the time in UTC; it is shown and typed in
// the browser's time zone, and sent with that zone's offset at the time typed.
document.querySelectorAll('input[type="datetime-local"][data-utc]').forEach(function (input) {
  const offset = input.form.querySelector('input[name="utc_offset"]');
  const two = function (n) { return String(n).padStart(2, '0'); };
  if (input.value) {
    const d = new Date(input.value + 'Z');
    input.value = d.getFullYear() + '-' + two(d.getMonth() + 1) + '-' + two(d.getDate()) + 'T' + two(d.getHours()) + ':' + two(d.getMinutes());
  }
  input.form.addEventListener('submit', function () {
    if (input.value && offset) offset.value = String(-new Date(input.value).getTimezoneOffset());
  });
});
