"""Constructions of the papers, with exact population moments; see :mod:`.registry` for the
named designs claims use."""

from .decaying import DecayingDesign, decaying_bounded_design, decaying_design, decaying_profile
from .lower_bounds import GoodFeature, SparseRows, good_feature, sparse_rows
from .registry import build_design, describe_designs, design_names, lasso_design, register_design, ridge_design

__all__ = ["DecayingDesign", "GoodFeature", "SparseRows", "build_design", "decaying_bounded_design", "decaying_design",
           "decaying_profile", "describe_designs", "design_names", "good_feature", "lasso_design", "register_design",
           "ridge_design", "sparse_rows"]
