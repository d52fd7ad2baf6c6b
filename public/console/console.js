// Size-Fit console: small progressive enhancements. Every page works without this script.
(function () {
  'use strict';

  // Destructive buttons ask first.
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (event) {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  });

  // "Copy" next to a new secret.
  document.querySelectorAll('button[data-copy]').forEach(function (button) {
    var source = document.getElementById(button.getAttribute('data-copy'));
    if (!source || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        button.textContent = 'Copied';
      });
    });
  });

  // "Select every product shown", beside the products' checkboxes.
  document.querySelectorAll('input[data-selects]').forEach(function (all) {
    var form = all.form;
    var name = all.getAttribute('data-selects');
    if (!form) return;
    all.hidden = false;
    all.addEventListener('change', function () {
      form.querySelectorAll('input[type="checkbox"][name="' + name + '"]').forEach(function (box) {
        box.checked = all.checked;
      });
    });
  });

  // A chosen CSV file fills the text box the form sends.
  document.querySelectorAll('input[type="file"][data-fills]').forEach(function (picker) {
    var target = document.getElementById(picker.getAttribute('data-fills'));
    if (!target) return;
    picker.addEventListener('change', function () {
      var file = picker.files && picker.files[0];
      if (!file) return;
      file.text().then(function (text) {
        target.value = text;
      });
    });
  });

  // The chart's ranges, drawn again as the figures change: one bar per size, on a scale shared by the sizes.
  var chartForm = document.getElementById('chart-form');
  var preview = document.getElementById('range-preview');
  if (chartForm && preview) {
    var SVG = 'http://www.w3.org/2000/svg';
    var number = function (text) {
      var value = Number(String(text).trim().replace(',', '.'));
      return text.trim() === '' || !isFinite(value) ? null : value;
    };
    var redraw = function () {
      preview.querySelectorAll('figure[data-zone]').forEach(function (figure) {
        var zone = figure.getAttribute('data-zone');
        var rows = [];
        chartForm.querySelectorAll('tr[data-row]').forEach(function (tr) {
          var label = tr.querySelector('input.label').value.trim();
          var min = number(tr.querySelector('input[data-zone="' + zone + '"][data-end="min"]').value);
          var max = number(tr.querySelector('input[data-zone="' + zone + '"][data-end="max"]').value);
          if (label && min !== null && max !== null && max > min) rows.push({ label: label, min: min, max: max });
        });
        var lo = Math.min.apply(
          null,
          rows.map(function (r) {
            return r.min;
          }),
        );
        var hi = Math.max.apply(
          null,
          rows.map(function (r) {
            return r.max;
          }),
        );
        var x = function (v) {
          return 70 + ((v - lo) / Math.max(hi - lo, 1)) * 520;
        };
        var height = Math.max(rows.length, 1) * 18 + 20;
        var svg = figure.querySelector('svg');
        while (svg.firstChild) svg.removeChild(svg.firstChild);
        svg.setAttribute('viewBox', '0 0 640 ' + height);
        var add = function (tag, attrs, text) {
          var el = document.createElementNS(SVG, tag);
          Object.keys(attrs).forEach(function (k) {
            el.setAttribute(k, attrs[k]);
          });
          if (text !== undefined) el.textContent = text;
          svg.appendChild(el);
        };
        rows.forEach(function (r, i) {
          add('text', { x: 64, y: i * 18 + 13, 'text-anchor': 'end' }, r.label);
          add('rect', { x: x(r.min).toFixed(1), y: i * 18 + 3, width: (x(r.max) - x(r.min)).toFixed(1), height: 12, rx: 3 });
        });
        if (rows.length) {
          add('text', { x: 70, y: height - 4 }, String(lo));
          add('text', { x: 590, y: height - 4, 'text-anchor': 'end' }, String(hi));
        }
        var caption = figure.querySelector('figcaption').textContent;
        svg.setAttribute(
          'aria-label',
          caption +
            ' ranges: ' +
            rows
              .map(function (r) {
                return r.label + ' ' + r.min + ' to ' + r.max;
              })
              .join('; '),
        );
      });
    };
    chartForm.addEventListener('input', redraw);
  }

  // The daily counts, drawn by uPlot from the JSON the page carries: one small chart per count (small multiples), each
  // on its own scale, so that a count of 3 is not flattened under one of 300 and no line hides another.
  var chart = document.getElementById('daily-chart');
  var data = document.getElementById('daily-data');
  if (!chart || !data || typeof window.uPlot !== 'function') return;
  var daily = JSON.parse(data.textContent);
  // Days after today (UTC) have no sessions yet: drawn as zeros they would look like a collapse, so they are left out.
  var today = new Date().toISOString().slice(0, 10);
  var shown = daily.dates.filter(function (date) {
    return date <= today;
  }).length;
  var DAY = 86400; // seconds, uPlot's unit of time
  var colors = ['#2563eb', '#16a34a', '#9333ea', '#dc2626'];
  var times = daily.dates.slice(0, shown).map(function (date) {
    return Date.parse(date + 'T00:00:00Z') / 1000;
  });
  chart.setAttribute('data-days-drawn', String(shown));
  // Without this script the page shows the daily table instead: open, with no empty chart box.
  chart.hidden = false;
  var table = document.getElementById('daily-table');
  if (table) table.open = false;
  var plots = daily.series.map(function (series, i) {
    var box = document.createElement('div');
    chart.appendChild(box);
    var size = function () {
      var width = Math.max(box.clientWidth, 220);
      return { width: width, height: Math.round(Math.min(200, Math.max(140, width * 0.45))) };
    };
    var options = Object.assign(size(), {
      title: series.label,
      tzDate: function (ts) {
        return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC');
      },
      legend: { show: false },
      scales: {
        x: {
          time: true,
          // One day alone: uPlot widens the scale from its point by 86400 / ms, which for seconds is some 1000 days (its
          // point at the left edge, the axis labelled like years). Give it its own day instead, the point in the middle.
          range: function (u, min, max) {
            return times.length === 1 ? [times[0] - DAY / 2, times[0] + DAY / 2] : [min, max];
          },
        },
        y: {
          range: function (u, min, max) {
            return [0, Math.max(1, max)];
          },
        },
      },
      axes: [
        {
          // Whole days only: ticks every few hours would repeat a date, since a label is the date alone.
          incrs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 30, 60, 90, 120, 180, 365].map(function (days) {
            return days * DAY;
          }),
          // Dates as the page writes them (UTC, ISO order), not in the browser's locale.
          values: function (u, splits) {
            var labels = splits.map(function (ts) {
              return new Date(ts * 1000).toISOString().slice(5, 10);
            });
            // the labels are painted on the canvas: named on the element too, for people reading the page and for tests
            chart.setAttribute('data-x-labels', labels.join(' '));
            return labels;
          },
        },
        { size: 40, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000] },
      ],
      series: [
        { label: 'Day' },
        { label: series.label, stroke: colors[i % colors.length], width: 2, points: { show: times.length <= 14 } },
      ],
    });
    var plot = new uPlot(options, [times, series.values.slice(0, shown)], box);
    return { plot: plot, size: size };
  });
  var pending;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () {
      plots.forEach(function (p) {
        p.plot.setSize(p.size());
      });
    }, 100);
  });
})();
