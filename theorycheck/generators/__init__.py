"""Constructions of the papers, with exact population moments; see :mod:`.registry` for the
named designs claims use."""

from .registry import build_design, describe_designs, design_names, lasso_design, register_design, ridge_design

__all__ = ["build_design", "describe_designs", "design_names", "lasso_design", "register_design", "ridge_design"]
