// Starts ReDoc on /api/redoc/ from a file, not an inline script: the page's
// Content-Security-Policy runs no inline script. The schema URL and ReDoc's settings
// come from the container's data attributes (sanitizer_app.api_docs.RedocView).
const container = document.getElementById("redoc-container");
window.Redoc.init(container.dataset.schemaUrl, JSON.parse(container.dataset.settings || "{}"), container);
