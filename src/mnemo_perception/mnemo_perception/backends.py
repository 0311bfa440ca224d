"""Detector backends: each turns one RGB(-D) frame into instances (label, score, mask, kind, id).

- ``ground_truth``: the simulator's instance segmentation (the papers' oracle mode).
- ``yolo``: an ultralytics segmentation model from a weights file; YOLOE / YOLO-World models
  are prompted with the vocabulary when their text encoder is on disk, else the model's own
  class names are used (filtered by the vocabulary).
- ``sam``: box-prompted mask refinement with segment-anything's SamPredictor (SAM ViT-B/L/H,
  or MobileSAM's TinyViT encoder as ``vit_t``); boxes come from ``yolo`` or ``ground_truth``.

Nothing is downloaded at run time: weights files must exist, or construction fails with a
clear error.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Protocol

import numpy as np

from mnemo_common.types import MnemoError, Status
from mnemo_perception.frame import Instance, Segmentation

BACKENDS = ("ground_truth", "yolo", "sam")


@dataclass(frozen=True)
class BackendConfig:
    backend: str = "ground_truth"
    weights: str = ""  # yolo weights (.pt); also the box source of sam when sam_box_source == "yolo"
    sam_checkpoint: str = ""
    sam_model_type: str = "vit_t"  # vit_t (MobileSAM) | vit_b | vit_l | vit_h
    sam_box_source: str = "ground_truth"  # ground_truth | yolo
    vocabulary: tuple[str, ...] = ()  # labels to keep / prompts; empty keeps every label
    fixture_labels: tuple[str, ...] = ()  # labels reported with kind "fixture" by the neural backends
    min_score: float = 0.25
    device: str = "cpu"
    image_size: int = 640


class Detector(Protocol):
    name: str

    def detect(self, rgb: np.ndarray, depth: Optional[np.ndarray] = None,
               extra: Optional[dict[str, Any]] = None) -> list[Instance]:
        """Instances in one frame. ``extra`` carries backend inputs such as ``segmentation``."""


def missing_file(what: str, path: str) -> MnemoError:
    return MnemoError(Status.UNAVAILABLE, f"{what} not found: {path!r} (backends never download; "
                                          f"put the file there or set the parameter)")


def _require_file(what: str, path: str) -> Path:
    if not path or not Path(path).is_file():
        raise missing_file(what, path)
    return Path(path)


def _keep(label: str, vocabulary: tuple[str, ...]) -> bool:
    return not vocabulary or label in vocabulary


def present_values(mask: np.ndarray) -> set[int]:
    """Values that occur in a segmentation image; a counting pass where values are small, as
    they are in simulators, instead of np.unique's sort of the whole image."""
    lo, hi = int(mask.min()), int(mask.max())
    if lo >= -1 and hi < 1 << 20:
        return set((np.flatnonzero(np.bincount(mask.ravel() + 1, minlength=hi + 2)) - 1).tolist())
    return set(np.unique(mask).tolist())


class GroundTruthDetector:
    """Instances straight from the simulator's segmentation image (``extra["segmentation"]``)."""

    name = "ground_truth"

    def __init__(self, vocabulary: tuple[str, ...] = ()):
        self.vocabulary = tuple(vocabulary)

    def detect(self, rgb, depth=None, extra=None) -> list[Instance]:
        seg: Optional[Segmentation] = (extra or {}).get("segmentation")
        if seg is None:
            raise ValueError("the ground_truth backend needs a segmentation image with the frame")
        seg.check()
        if seg.mask.shape != rgb.shape[:2]:
            raise ValueError(f"segmentation {seg.mask.shape} and colour {rgb.shape[:2]} differ in size")
        present = present_values(seg.mask)
        out = []
        for value, iid, label, kind in zip(seg.values, seg.instance_ids, seg.labels, seg.kinds):
            if value in present and _keep(label, self.vocabulary):
                out.append(Instance(label, 1.0, seg.mask == value, kind or "object", iid))
        return out


class YoloDetector:
    """An ultralytics segmentation model (YOLOv8/11-seg, YOLOE-seg, YOLO-World with masks)."""

    name = "yolo"

    def __init__(self, weights: str, vocabulary: tuple[str, ...] = (), min_score: float = 0.25,
                 device: str = "cpu", image_size: int = 640, fixture_labels: tuple[str, ...] = (),
                 logger: Any = None):
        os.environ.setdefault("YOLO_OFFLINE", "1")
        path = _require_file("yolo weights", weights)
        from ultralytics import YOLO

        self.model = YOLO(str(path))
        self.vocabulary, self.min_score = tuple(vocabulary), float(min_score)
        self.device, self.image_size = device, int(image_size)
        self.fixture_labels = set(fixture_labels)
        self.prompted = False
        if self.vocabulary and hasattr(self.model, "set_classes"):
            if text_encoder_available(self.model):
                self.model.set_classes(list(self.vocabulary))
                self.prompted = True
            elif logger is not None:
                logger.warning("text encoder of this open-vocabulary model is not on disk: using its own class "
                               "names filtered by the vocabulary")

    def class_names(self) -> dict[int, str]:
        names = self.model.names
        return dict(names) if isinstance(names, dict) else dict(enumerate(names))

    def detect(self, rgb, depth=None, extra=None) -> list[Instance]:
        h, w = rgb.shape[:2]
        # ultralytics takes numpy images as BGR (OpenCV order)
        result = self.model.predict(np.ascontiguousarray(rgb[..., ::-1]), conf=self.min_score, imgsz=self.image_size,
                                    device=self.device, verbose=False, retina_masks=True)[0]
        if result.boxes is None or len(result.boxes) == 0 or result.masks is None:
            return []
        names = self.class_names()
        classes = result.boxes.cls.cpu().numpy().astype(int)
        scores = result.boxes.conf.cpu().numpy()
        masks = result.masks.data.cpu().numpy() > 0.5
        if masks.shape[1:] != (h, w):
            masks = _resize_masks(masks, h, w)
        out = []
        for i, (c, s) in enumerate(zip(classes, scores)):
            label = names.get(int(c), str(int(c)))
            if _keep(label, self.vocabulary):
                out.append(Instance(label, float(s), masks[i], "fixture" if label in self.fixture_labels else "object",
                                    ""))
        return out


def _resize_masks(masks: np.ndarray, h: int, w: int) -> np.ndarray:
    """Nearest-neighbour resize of (N, h', w') bool masks to (N, h, w)."""
    rows = (np.arange(h) * masks.shape[1] / h).astype(int)
    cols = (np.arange(w) * masks.shape[2] / w).astype(int)
    return masks[:, rows][:, :, cols]


def text_encoder_available(model: Any) -> bool:
    """Whether the text encoder that ``set_classes`` loads is already on disk (it would be downloaded
    otherwise): MobileCLIP for YOLOE, CLIP for YOLO-World."""
    from ultralytics.utils import WEIGHTS_DIR

    kind = type(model).__name__
    if kind == "YOLOE":
        candidates = ["mobileclip_blt.ts", "mobileclip2_b.ts"]
        return any(Path(c).is_file() or (Path(WEIGHTS_DIR) / c).is_file() for c in candidates)
    if kind == "YOLOWorld":
        return any((Path(WEIGHTS_DIR) / "clip").glob("*.pt"))
    return False


def box_prompts(instances: list[Instance]) -> np.ndarray:
    """(N, 4) xyxy pixel boxes of instance masks (max exclusive)."""
    from mnemo_perception.deproject import mask_box

    return np.array([mask_box(i.mask) for i in instances], dtype=np.float32).reshape(-1, 4)


def build_mobile_sam(checkpoint: Optional[str] = None):
    """MobileSAM: segment-anything's prompt encoder and mask decoder on a TinyViT image encoder
    (the architecture of MobileSAM's ``mobile_sam.pt``; TinyViT comes from ultralytics)."""
    import torch
    from segment_anything.modeling import MaskDecoder, PromptEncoder, Sam, TwoWayTransformer
    from ultralytics.models.sam.modules.tiny_encoder import TinyViT

    encoder = TinyViT(img_size=1024, in_chans=3, num_classes=1000, embed_dims=[64, 128, 160, 320],
                      depths=[2, 2, 6, 2], num_heads=[2, 4, 5, 10], window_sizes=[7, 7, 14, 7], mlp_ratio=4.0,
                      drop_rate=0.0, drop_path_rate=0.0, use_checkpoint=False, mbconv_expand_ratio=4.0,
                      local_conv_size=3, layer_lr_decay=0.8)
    sam = Sam(image_encoder=encoder,
              prompt_encoder=PromptEncoder(embed_dim=256, image_embedding_size=(64, 64), input_image_size=(1024, 1024),
                                           mask_in_chans=16),
              mask_decoder=MaskDecoder(num_multimask_outputs=3,
                                       transformer=TwoWayTransformer(depth=2, embedding_dim=256, mlp_dim=2048,
                                                                     num_heads=8),
                                       transformer_dim=256, iou_head_depth=3, iou_head_hidden_dim=256),
              pixel_mean=[123.675, 116.28, 103.53], pixel_std=[58.395, 57.12, 57.375])
    if checkpoint is not None:
        state = torch.load(checkpoint, map_location="cpu", weights_only=True)
        sam.load_state_dict(state.get("model", state) if isinstance(state, dict) else state)
    return sam.eval()


def sam_builders() -> dict[str, Any]:
    from segment_anything import sam_model_registry

    builders = {k: v for k, v in sam_model_registry.items() if k != "default"}
    builders["vit_t"] = build_mobile_sam
    return builders


class SamDetector:
    """Box-prompted mask refinement: boxes (and labels) from another detector, masks from SAM."""

    name = "sam"

    def __init__(self, checkpoint: str, model_type: str, box_source: Detector, device: str = "cpu"):
        path = _require_file("sam checkpoint", checkpoint)
        builders = sam_builders()
        if model_type not in builders:
            raise ValueError(f"unknown sam_model_type {model_type!r}; one of {sorted(builders)}")
        from segment_anything import SamPredictor

        self.predictor = SamPredictor(builders[model_type](checkpoint=str(path)).to(device))
        self.box_source = box_source

    def detect(self, rgb, depth=None, extra=None) -> list[Instance]:
        import torch

        prompts = [i for i in self.box_source.detect(rgb, depth, extra) if i.mask.any()]
        if not prompts:
            return []
        self.predictor.set_image(np.ascontiguousarray(rgb), image_format="RGB")
        boxes = torch.as_tensor(box_prompts(prompts), device=self.predictor.device)
        with torch.no_grad():
            masks, scores, _ = self.predictor.predict_torch(
                None, None, boxes=self.predictor.transform.apply_boxes_torch(boxes, rgb.shape[:2]),
                multimask_output=False)
        masks = masks[:, 0].cpu().numpy()
        scores = scores[:, 0].cpu().numpy()
        return [Instance(p.label, float(p.score) * float(s), m, p.kind, p.instance_id)
                for p, m, s in zip(prompts, masks, scores)]


def make_detector(config: BackendConfig, logger: Any = None) -> Detector:
    """The configured backend; raises MnemoError(UNAVAILABLE) when a weights file is missing."""
    def yolo() -> YoloDetector:
        return YoloDetector(config.weights, config.vocabulary, config.min_score, config.device, config.image_size,
                            config.fixture_labels, logger)

    if config.backend == "ground_truth":
        return GroundTruthDetector(config.vocabulary)
    if config.backend == "yolo":
        return yolo()
    if config.backend == "sam":
        if config.sam_box_source not in ("ground_truth", "yolo"):
            raise ValueError(f"sam_box_source must be ground_truth or yolo, got {config.sam_box_source!r}")
        _require_file("sam checkpoint", config.sam_checkpoint)  # fail before loading the box source
        source = GroundTruthDetector(config.vocabulary) if config.sam_box_source == "ground_truth" else yolo()
        return SamDetector(config.sam_checkpoint, config.sam_model_type, source, config.device)
    raise ValueError(f"unknown backend {config.backend!r}; one of {BACKENDS}")


def needs_segmentation(config: BackendConfig) -> bool:
    """Whether frames must come with the simulator's segmentation image."""
    return config.backend == "ground_truth" or (config.backend == "sam" and config.sam_box_source == "ground_truth")
