"""Constructions of the papers, with exact population moments; see :mod:`.registry` for the
named designs claims use."""

from .decaying import DecayingDesign, decaying_bounded_design, decaying_design, decaying_profile
from .registry import build_design, describe_designs, design_names, lasso_design, register_design, ridge_design

__all__ = ["DecayingDesign", "build_design", "decaying_bounded_design", "decaying_design", "decaying_profile",
           "describe_designs", "design_names", "lasso_design", "register_design", "ridge_design"]
