// The map: the seat's picture with the SVG layer of the pack's geometry over it (render/
// geometry.py: every shape in the picture's own pixels), zoom and pan by mouse, wheel, touch
// (one finger pans, two pinch) and buttons. Clicking a shape or a counter calls back; a drag
// is not a click.

const SVG = "http://www.w3.org/2000/svg";
const DRAG = 6; // pixels a pointer moves before a press is a drag, not a click

export class MapView {
  constructor(root, { onSpace, onCounter }) {
    this.root = root;
    this.onSpace = onSpace;
    this.onCounter = onCounter;
    this.stage = root.querySelector(".stage");
    this.img = root.querySelector("img.picture");
    this.svg = root.querySelector("svg.shapes");
    this.scale = 1;
    this.x = 0;
    this.y = 0;
    this.size = null;
    this.fitted = false;
    this.shapes = new Map();
    this.counters = new Map();
    this.pointers = new Map();
    // the picture shown (data-loaded: its URL once drawn, for whoever waits on it)
    this.img.addEventListener("load", () => {
      this.img.dataset.loaded = this.img.getAttribute("src");
    });
    this.bind();
  }

  // the picture (a URL) and its geometry (the JSON of render.geometry)
  show(pictureUrl, geometry) {
    if (this.img.getAttribute("src") !== pictureUrl) this.img.src = pictureUrl;
    this.draw(geometry);
  }

  draw(geo) {
    const [w, h] = geo.size;
    this.size = [w, h];
    this.stage.style.width = `${w}px`;
    this.stage.style.height = `${h}px`;
    this.img.width = w;
    this.img.height = h;
    this.svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    this.svg.setAttribute("width", w);
    this.svg.setAttribute("height", h);
    this.svg.replaceChildren();
    this.shapes.clear();
    this.counters.clear();
    const zoneOf = new Map();
    for (const [side, keys] of Object.entries(geo.zones || {})) {
      for (const key of keys) zoneOf.set(key, side);
    }
    for (const shape of geo.shapes) {
      const poly = document.createElementNS(SVG, "polygon");
      poly.setAttribute("points", shape.points.map((p) => p.join(",")).join(" "));
      poly.classList.add("space", shape.kind);
      if (zoneOf.has(shape.key)) poly.classList.add("setup-zone", `zone-${zoneOf.get(shape.key)}`);
      poly.dataset.key = shape.key;
      const title = document.createElementNS(SVG, "title");
      title.textContent = shape.kind === "zone" ? `Zone ${shape.key}` : shape.key;
      poly.append(title);
      this.svg.append(poly);
      this.shapes.set(shape.key, poly);
    }
    for (const c of geo.counters || []) {
      const rect = document.createElementNS(SVG, "rect");
      const half = c.size / 2;
      rect.setAttribute("x", c.centre[0] - half);
      rect.setAttribute("y", c.centre[1] - half);
      rect.setAttribute("width", c.size);
      rect.setAttribute("height", c.size);
      rect.classList.add("counter");
      rect.dataset.unit = c.unit;
      rect.dataset.key = c.space;
      this.svg.append(rect);
      this.counters.set(c.unit, rect);
    }
    if (!this.fitted) this.fit();
    this.apply();
  }

  // highlight: the places of the chosen unit's orders, the selected space and unit
  highlight({ places = [], selected = null, unit = null } = {}) {
    for (const [key, el] of this.shapes) {
      el.classList.toggle("legal", places.includes(key));
      el.classList.toggle("selected", key === selected);
    }
    for (const [id, el] of this.counters) el.classList.toggle("selected", id === unit);
  }

  // the picture as wide as the map's box (``whole``: all of it inside the box)
  fit(whole = false) {
    if (!this.size) return;
    const box = this.root.getBoundingClientRect();
    if (box.width < 10) return;
    const wide = box.width / this.size[0];
    this.scale = Math.min(1, whole ? Math.min(wide, box.height / this.size[1]) : wide);
    this.x = (box.width - this.size[0] * this.scale) / 2;
    this.y = whole ? (box.height - this.size[1] * this.scale) / 2 : 0;
    this.fitted = true;
    this.apply();
  }

  zoom(factor, cx, cy) {
    const box = this.root.getBoundingClientRect();
    if (cx === undefined) {
      cx = box.width / 2;
      cy = box.height / 2;
    }
    const next = Math.min(4, Math.max(0.1, this.scale * factor));
    const k = next / this.scale;
    this.x = cx - (cx - this.x) * k;
    this.y = cy - (cy - this.y) * k;
    this.scale = next;
    this.apply();
  }

  // the map centred on a space (e.g. a highlighted destination)
  centreOn(key) {
    const el = this.shapes.get(key);
    if (!el) return;
    const b = el.getBBox();
    const box = this.root.getBoundingClientRect();
    this.x = box.width / 2 - (b.x + b.width / 2) * this.scale;
    this.y = box.height / 2 - (b.y + b.height / 2) * this.scale;
    this.apply();
  }

  apply() {
    this.stage.style.transform = `translate(${this.x}px, ${this.y}px) scale(${this.scale})`;
  }

  bind() {
    const root = this.root;
    let start = null;
    let moved = false;
    let pinch = null;
    root.addEventListener("pointerdown", (e) => {
      this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (this.pointers.size === 1) {
        start = { px: e.clientX, py: e.clientY, x: this.x, y: this.y, target: e.target };
        moved = false;
      } else if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        pinch = { d: Math.hypot(a[0] - b[0], a[1] - b[1]), scale: this.scale };
        moved = true;
      }
    });
    root.addEventListener("pointermove", (e) => {
      if (!this.pointers.has(e.pointerId)) return;
      this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
      if (pinch && this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
        const box = root.getBoundingClientRect();
        const target = pinch.scale * (d / pinch.d);
        this.zoom(target / this.scale, (a[0] + b[0]) / 2 - box.left, (a[1] + b[1]) / 2 - box.top);
        return;
      }
      if (!start) return;
      const dx = e.clientX - start.px;
      const dy = e.clientY - start.py;
      if (!moved && Math.hypot(dx, dy) < DRAG) return;
      if (!moved) root.setPointerCapture(e.pointerId);
      moved = true;
      this.x = start.x + dx;
      this.y = start.y + dy;
      this.apply();
    });
    const end = (e) => {
      const wasClick = start && !moved && this.pointers.size === 1 && e.type === "pointerup";
      const target = start ? start.target : null;
      this.pointers.delete(e.pointerId);
      if (this.pointers.size < 2) pinch = null;
      if (this.pointers.size === 0) start = null;
      if (wasClick && target) this.click(target);
    };
    root.addEventListener("pointerup", end);
    root.addEventListener("pointercancel", end);
    root.addEventListener("wheel", (e) => {
      e.preventDefault();
      const box = root.getBoundingClientRect();
      this.zoom(e.deltaY < 0 ? 1.2 : 1 / 1.2, e.clientX - box.left, e.clientY - box.top);
    }, { passive: false });
    window.addEventListener("resize", () => {
      if (this.size && this.scale * this.size[0] < root.getBoundingClientRect().width) this.fit();
    });
  }

  click(target) {
    if (target.classList && target.classList.contains("counter")) {
      this.onCounter(target.dataset.unit, target.dataset.key);
    } else if (target.classList && target.classList.contains("space")) {
      this.onSpace(target.dataset.key);
    }
  }
}
