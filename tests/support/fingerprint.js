// Fingerprint of the data a named Bokeh plot draws: per renderer, per column,
// length and sum. It changes whenever the plotted data does.
(name) => {
  if (!window.Bokeh || !Bokeh.documents) return null;
  // Newest document first: a static page keeps its pre-rendered one around.
  for (const doc of [...Bokeh.documents].reverse()) {
    const plot = doc.get_model_by_name(name);
    if (!plot) continue;
    return plot.renderers.filter(r => r.data_source).map(r => {
      const data = r.data_source.data;
      return Object.keys(data).sort().map(key => {
        const column = data[key];
        const flat = (column.length && column[0] && column[0].length !== undefined
                      && typeof column[0] !== 'string')
          ? column.flatMap(a => Array.from(a)) : Array.from(column);
        let sum = 0;
        for (const x of flat) if (typeof x === 'number') sum += x;
        return `${key}:${flat.length}:${sum.toFixed(6)}`;
      }).join('|');
    }).join(' ; ');
  }
  return null;
}
