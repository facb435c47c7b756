"""The calibrated question bank: generated questions kept beside the graph, every target's
answers to them, a 2PL calibration, adaptive testing, and exports."""
