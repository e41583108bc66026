"""Origami crease patterns (FOLD), foldability, fold simulation, renders and the GamiBench questions."""
