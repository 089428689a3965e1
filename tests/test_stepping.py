"""The stepping lab's saturation detector and its prediction, on synthetic step tables."""
import pandas as pd

LAB = "stepping"   # the `lab` fixture (conftest.py): the lab's package


def table(iops, clat):
    return pd.DataFrame({"readers": range(1, len(iops) + 1), "iops": iops, "clat_us": clat})


def test_detects_the_first_step_that_adds_nothing(lab):
    st = table([98, 195, 294, 390, 400, 400, 400], [180, 185, 150, 190, 2400, 4900, 7400])
    sat = lab.detect_saturation(st)
    assert sat["step"] == 5 and sat["plateau_iops"] == 400
    assert lab.predicted_step(400, 98) == 5


def test_no_saturation_while_throughput_keeps_rising(lab):
    st = table([100, 200, 300, 400], [200, 200, 210, 205])
    assert lab.detect_saturation(st)["step"] is None


def test_a_flat_step_without_rising_latency_is_not_saturation(lab):
    # a dip from noise: throughput stalls one step but latency did not climb
    st = table([100, 200, 205, 300, 300], [200, 210, 200, 220, 900])
    assert lab.detect_saturation(st)["step"] == 5


def test_prediction_rounds_at_half_a_reader(lab):
    assert lab.predicted_step(450, 100) == 6   # the 5th reader still finds half a reader's room
    assert lab.predicted_step(440, 100) == 5
