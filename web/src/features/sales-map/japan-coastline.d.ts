// The module japan-coastline.vite.ts builds: Japan's coastline (Natural Earth 1:10m via world-atlas).
declare module 'virtual:japan-coastline' {
  const coastline: import('geojson').FeatureCollection;
  export default coastline;
}
