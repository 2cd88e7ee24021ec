(function () {
  var headers = document.querySelectorAll('table.sortable th[data-col]');
  Array.prototype.forEach.call(headers, function (th) {
    th.addEventListener('click', function () {
      var table = th.closest('table');
      var body = table.tBodies[0];
      var col = parseInt(th.getAttribute('data-col'), 10);
      var desc = th.getAttribute('data-dir') !== 'desc';
      th.setAttribute('data-dir', desc ? 'desc' : 'asc');
      var rows = Array.prototype.slice.call(body.rows);
      var value = function (row) {
        var v = parseFloat(row.cells[col] ? row.cells[col].getAttribute('data-v') : 'nan');
        return isNaN(v) ? -Infinity : v;
      };
      rows.sort(function (a, b) { return desc ? value(b) - value(a) : value(a) - value(b); });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
  document.documentElement.setAttribute('data-report-ready', String(headers.length));
})();
