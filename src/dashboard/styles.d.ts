// Stylesheets are bundled by esbuild (scripts/build-dashboard.mjs); importing one yields nothing.
declare module '*.css';
