// Replay: a slider over the game's record, one position per action or per step (an impulse
// of TP:S, a phase of Stalin's Tanks), each re-rendered from the record for this seat's view
// (the full view after the end); a link to the record's verification.

import { getJSON, urls } from "./api.js";

export class Replay {
  constructor(root, map) {
    this.root = root;
    this.map = map;
    this.slider = root.querySelector("#replay-slider");
    this.caption = root.querySelector("#replay-caption");
    this.img = document.querySelector("#map img.picture");
    this.active = false;
    this.steps = [];
    this.live = null;
    root.querySelector("#replay-open").addEventListener("click", () => this.open());
    root.querySelector("#replay-close").addEventListener("click", () => this.close());
    root.querySelector("#replay-by").addEventListener("change", () => {
      if (this.active) this.open();
    });
    this.slider.addEventListener("input", () => this.show(Number(this.slider.value)));
  }

  update(state) {
    this.live = state;
    const commitment = (state.game || {}).commitment;
    const link = this.root.querySelector("#verify");
    link.textContent = commitment ? `Commitment: ${commitment}` : "";
  }

  async open() {
    const by = this.root.querySelector("#replay-by").value;
    const data = await getJSON(`${urls.replay()}?by=${encodeURIComponent(by)}`);
    this.steps = (data.captions || []).map((caption, n) => ({
      caption, picture: data.picture.replace("{n}", String(n)),
    }));
    if (!this.steps.length) {
      this.caption.textContent = "Nothing to replay yet.";
      return;
    }
    this.active = true;
    this.root.classList.add("on");
    document.body.classList.add("replaying");
    this.slider.min = 0;
    this.slider.max = this.steps.length - 1;
    this.slider.value = this.steps.length - 1;
    this.slider.disabled = false;
    this.show(this.steps.length - 1);
  }

  show(i) {
    const step = this.steps[i];
    if (!step) return;
    this.caption.textContent = `${i + 1}/${this.steps.length}: ${step.caption || ""}`;
    this.img.src = step.picture;
  }

  close() {
    this.active = false;
    this.root.classList.remove("on");
    document.body.classList.remove("replaying");
    this.slider.disabled = true;
    if (this.live) this.img.src = this.live.links.map;
  }
}
