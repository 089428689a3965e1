"""Lab elinks: parsing the server's SFTP log, strace and bpftrace output, and the drill-down, on
small synthetic lines (no Docker). Line formats are those of OpenSSH 9.2's internal-sftp at
VERBOSE (through the lab's syslog listener), strace 6.1 and bpftrace 0.17 -f json."""
import gzip
import json
import math

import pandas as pd
import pytest

from perflab.config import manifest as manifest_mod

CLIENTS = {"1": {"ip": "172.19.0.3"}, "2": {"ip": "172.19.0.4"}, "3": {"ip": "172.19.0.5"}}
T0 = 1_700_000_000.0


@pytest.fixture(scope="module")
def lab():
    return manifest_mod.load().lab("elinks").load_module()


def sys_line(t, pid, msg, ident="internal-sftp"):
    return f"{t:.6f} <38>Nov 21 08:13:32 {ident}[{pid}]: {msg}"


def sessions():
    return [sys_line(T0 - 5, 70, "Accepted publickey for desk1 from 172.19.0.3 port 43614 ssh2: ED25519 SHA256:x",
                     ident="sshd"),
            sys_line(T0 - 5, 78, "session opened for local user desk1 from [172.19.0.3]"),
            sys_line(T0 - 5, 78, "received client version 3"),
            sys_line(T0 - 5, 82, "session opened for local user desk2 from [172.19.0.4]"),
            sys_line(T0 - 5, 86, "session opened for local user desk3 from [172.19.0.5]")]


def synthetic_log(rate=20, seconds=10, buggy_pid=82, buggy_user="desk2"):
    """`rate` failed lstats a second from one session, and modest work from the two others."""
    lines = sessions()
    for i in range(rate * seconds):
        t = T0 + i / rate
        lines.append(sys_line(t, buggy_pid, f'lstat name "/home/{buggy_user}/.elinks/formhist"'))
        lines.append(sys_line(t + 1e-4, buggy_pid, "sent status No such file"))
    for pid, user in ((78, "desk1"), (86, "desk3")):
        for s in range(seconds):
            t = T0 + s + 0.3
            lines += [sys_line(t, pid, f'open "/home/{user}/Documents/note-1.txt" flags WRITE,TRUNCATE mode 00'),
                      sys_line(t + 0.001, pid, f'close "/home/{user}/Documents/note-1.txt" bytes read 0 written 31'),
                      sys_line(t + 0.002, pid, f'lstat name "/home/{user}/Documents/report.txt"')]
    return sorted(lines)


def test_syslog_line(lab):
    e = lab.parse_syslog_line('1795248812.046634 <38>Nov 21 08:13:32 internal-sftp[78]: lstat name "/home/desk1"')
    assert e == {"t": 1795248812.046634, "ident": "internal-sftp", "pid": 78, "msg": 'lstat name "/home/desk1"'}
    assert lab.parse_syslog_line("garbage") is None
    assert lab.parse_syslog_line("1.0 <38>Nov  1 08:13:32 sshd: no pid")["pid"] is None


def test_requests_are_attributed_to_clients_by_session(lab):
    req = lab.parse_sftp_log(sessions() + [
        sys_line(T0, 82, 'lstat name "/home/desk2/.elinks/formhist"'),
        sys_line(T0, 82, "sent status No such file"),
        sys_line(T0 + 0.1, 78, 'open "/home/desk1/a \\"quoted\\" name" flags READ mode 00'),
        sys_line(T0 + 0.2, 78, 'rename old "/home/desk1/a" new "/home/desk1/b"'),
        sys_line(T0 + 0.3, 99, 'lstat name "/home/nobody"'),  # a session opened before the log began
        sys_line(T0 + 0.4, 82, "received client version 3"),
        "1700000000.5 <38>Nov 21 08:13:32 sshd[70]: Received disconnect from 172.19.0.3",
    ], CLIENTS)
    assert list(req["op"]) == ["lstat", "open", "rename", "lstat"]
    assert list(req["client"].astype("object")) == [2, 1, 1, pd.NA]
    assert req.iloc[0]["status"] == "No such file" and pd.isna(req.iloc[1]["status"])
    assert req.iloc[1]["path"] == '/home/desk1/a "quoted" name'
    assert req.iloc[2]["path"] == "/home/desk1/a"
    assert req.iloc[0]["user"] == "desk2" and req.iloc[0]["ip"] == "172.19.0.4"


def test_drill_down_finds_client_op_file_and_rate(lab):
    req = lab.parse_sftp_log(synthetic_log(rate=20, seconds=10), CLIENTS)
    dd = lab.drill_down(req, T0, T0 + 10)
    assert dd["client"] == 2 and dd["op"] == "lstat" and dd["file"] == "/home/desk2/.elinks/formhist"
    assert dd["rate"] == pytest.approx(20.0)
    assert list(dd["by_client"].index[:1]) == [2] and dd["by_client"][1] == 30
    assert dd["share"] == pytest.approx(200 / 260)
    # a window with nothing in it does not crash and detects nothing
    empty = lab.drill_down(req, T0 + 100, T0 + 110)
    assert empty["client"] is None and empty["rate"] == 0.0


def test_a_program_held_up_for_seconds_lowers_the_mean_rate_not_the_median(lab):
    """A fresh-clone run at 783199c, on a machine short of memory: the stand-in made 29, 0, 0, 31 and 33
    opens in five seconds against 63; the server's mean over the window fell to 52.6 a second while its
    median second, like strace's, stayed at 63."""
    req = lab.parse_sftp_log(synthetic_log(rate=20, seconds=10), CLIENTS)
    req = req[~((req["client"] == 2) & (req["t"] >= T0 + 6) & (req["t"] < T0 + 9))]   # held up 3 s
    assert (req["client"] == 2).sum() == 20 * 7
    dd = lab.drill_down(req, T0, T0 + 10)
    assert dd["rate"] == pytest.approx(14.0) and dd["median_rate"] == 20.0


def test_drill_down_follows_the_top_talker_even_if_it_is_not_the_bug(lab):
    """With a slow enough bug, a busy desktop is the top talker: the drill-down says so."""
    req = lab.parse_sftp_log(synthetic_log(rate=1, seconds=10), CLIENTS)
    dd = lab.drill_down(req, T0, T0 + 10)
    assert dd["client"] in (1, 3) and dd["file"].startswith("/home/desk")


def test_per_second_table(lab):
    req = lab.parse_sftp_log(synthetic_log(rate=20, seconds=3), CLIENTS)
    tab = lab.per_second(lab.window(req, T0, T0 + 3), T0)
    assert list(tab.index) == [0, 1, 2]
    assert list(tab[2]) == [20, 20, 20] and list(tab[1]) == [3, 3, 3]


STRACE = """\
1795249283.718299 openat(AT_FDCWD, "/home/desk2/.elinks/formhist", O_RDONLY) = -1 ENOENT (No such file or directory)
33    1795249283.733379 openat(AT_FDCWD, "/home/desk2/.elinks/formhist", O_RDONLY) = -1 ENOENT (No such file or directory)
1795249302.807008 openat(AT_FDCWD, "/run/elinks-fixed.pid", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3
1795249322.802482 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=164, si_uid=0} ---
1795249322.808496 +++ exited with 0 +++
"""


def test_parse_strace(lab):
    st = lab.parse_strace(STRACE.splitlines())
    assert list(st["err"].fillna("-")) == ["ENOENT", "ENOENT", "-"]
    assert list(st["ret"]) == [-1, -1, 3]
    assert st.iloc[2]["path"] == "/run/elinks-fixed.pid" and st.iloc[0]["t"] == pytest.approx(1795249283.718299)
    assert st["dur"].isna().all()     # without -T: no durations


def test_strace_durations_become_a_trace(lab, tmp_path):
    """strace -T appends each call's time in it; openat_trace writes them in the bpftrace form that
    perflab heatmap --trace and perflab compare read."""
    lines = ['1795249283.718299 openat(AT_FDCWD, "/home/desk4/.elinks/formhist", O_RDONLY) = -1 ENOENT '
             '(No such file or directory) <0.000412>',
             '1795249283.818301 openat(AT_FDCWD, "/run/x.pid", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3 <0.000031>']
    st = lab.parse_strace(lines)
    assert list(st["dur"]) == [0.000412, 0.000031] and list(st["err"].fillna("-")) == ["ENOENT", "-"]
    text = lab.openat_trace(st)
    assert text.splitlines() == ["# time_ns latency_ns", "1795249283718299000 412000", "1795249283818301000 31000"]
    from perflab.analysis.heatmap import from_trace
    (tmp_path / "openat.trace").write_text(text)
    hm = from_trace([tmp_path / "openat.trace"], "bpftrace")
    assert int(hm.counts.sum()) == 2


STACKS = """\
1795249299.9 openat(AT_FDCWD, "/home/desk2/.elinks/formhist", O_RDONLY) = -1 ENOENT (No such file or directory)
 > /usr/lib/x86_64-linux-gnu/libc.so.6(__open64+0x51) [0xf8011]
 > /usr/lib/x86_64-linux-gnu/libc.so.6(_IO_file_fopen+0xfb) [0x81b7b]
 > /usr/local/bin/elinks-standin(load_formhist_from_file+0x24) [0x129c]
 > /usr/local/bin/elinks-standin(get_form_history_value+0x34) [0x1348]
 > /usr/local/bin/elinks-standin(draw_forms+0x1d) [0x1382]
 > /usr/local/bin/elinks-standin(refresh_view+0x9) [0x13a6]
 > /usr/local/bin/elinks-standin(redraw_terminal+0x9) [0x13d6]
 > /usr/local/bin/elinks-standin(redraw_leds+0x23) [0x13fc]
 > /usr/local/bin/elinks-standin(check_timers+0x6a) [0x1485]
 > /usr/local/bin/elinks-standin(select_loop+0xd3) [0x155b]
 > /usr/local/bin/elinks-standin(main+0x337) [0x18ee]
 > /usr/lib/x86_64-linux-gnu/libc.so.6() [0x2724a]
1795249299.91 openat(AT_FDCWD, "/home/desk2/.elinks/formhist", O_RDONLY) = -1 ENOENT (No such file or directory)
 > /usr/local/bin/elinks-standin(main+0x337) [0x18ee]
"""


def test_parse_strace_stacks_and_chain(lab):
    calls = lab.parse_strace_stacks(STACKS.splitlines())
    assert len(calls) == 2 and "formhist" in calls[0]["call"]
    frames = calls[0]["frames"]
    assert frames[0] == {"object": "/usr/lib/x86_64-linux-gnu/libc.so.6", "function": "__open64", "offset": "0x51"}
    assert frames[-1]["function"] is None  # an unnamed libc frame
    assert lab.function_names(frames)[2] == "load_formhist_from_file"
    assert lab.chain_in_order(frames)
    assert not lab.chain_in_order(calls[1]["frames"])
    swapped = [frames[3], frames[2]] + frames[4:]  # get_form_history_value below load_formhist_from_file
    assert not lab.chain_in_order(swapped)
    assert "elinks-standin`load_formhist_from_file+0x24" in lab.stack_text(frames)


def test_parse_bpftrace_json(lab):
    stack = "\n    load_formhist_from_file+0\n    get_form_history_value+52\n    draw_forms+29\n" \
            "    refresh_view+9\n    redraw_terminal+9\n    redraw_leds+35\n    check_timers+106\n" \
            "    select_loop+211\n    main+1048\n    0x7fa3d8a5324a\n"
    lines = [json.dumps(x) for x in (
        {"type": "attached_probes", "data": {"probes": 4}},
        {"type": "time", "data": "1795249285\n"},
        {"type": "map", "data": {"@opens": {"/home/desk2/.elinks/formhist": 63, "/etc/hosts": 1}}},
        {"type": "time", "data": "1795249286\n"},
        {"type": "map", "data": {"@opens": {}}},
        {"type": "map", "data": {"@stacks": {stack: 126}}},
    )] + ["not json"]
    b = lab.parse_bpftrace(lines)
    ps = b["per_second"]
    assert len(ps) == 3 and ps["count"].sum() == 64
    assert ps[ps["path"] == "/home/desk2/.elinks/formhist"]["t"].tolist() == [1795249285.0]
    assert b["stacks"][0]["count"] == 126 and b["stacks"][0]["frames"][0] == "load_formhist_from_file+0"
    assert lab.chain_in_order(b["stacks"][0]["frames"])


def test_parse_bpftrace_0_23_json_stack_keys(lab):
    """bpftrace 0.23 (Debian 13) writes a stack key's newlines as the two characters \\n: the
    line of a real run (elinks on `--suite trixie`), shortened."""
    line = ('{"type": "map", "data": {"@stacks": {"\\\\n        load_formhist_from_file+0\\\\n        '
            'get_form_history_value+52\\\\n        draw_forms+29\\\\n        refresh_view+9\\\\n        '
            'redraw_terminal+9\\\\n        redraw_leds+35\\\\n        check_timers+106\\\\n        '
            'select_loop+211\\\\n        main+1048\\\\n        0x7f99a8f81ca8\\\\n": 997}}}')
    frames = lab.parse_bpftrace([line])["stacks"][0]["frames"]
    assert frames[0] == "load_formhist_from_file+0" and frames[-1] == "0x7f99a8f81ca8" and len(frames) == 10
    assert lab.chain_in_order(frames)


def test_counts_per_second_and_net_rates(lab):
    t = pd.Series([T0 + 0.1, T0 + 0.2, T0 + 2.5, T0 + 3.9])
    assert lab.counts_per_second(t, T0, T0 + 3.5).tolist() == [2, 0, 1]
    net = lab.parse_net([f"{T0} 1000 2000 10 20", f"{T0 + 2} 5096 4048 110 120", "bad line"])
    r = lab.net_rates(net, T0, T0 + 2)
    assert r == {"rkib_s": 2.0, "wkib_s": 1.0, "rpk_s": 50.0, "wpk_s": 50.0}
    assert lab.net_rates(net, T0 + 10, T0 + 20)["rkib_s"] is None


def test_summary_from_a_synthetic_run(lab, tmp_path):
    """load() and summary() on a run directory made of synthetic files."""
    rate, T = 20, 10
    tl = {"buggy_client": 2, "open_rate": rate, "work_rate": 1, "phase_s": T, "settle_s": 2.0,
          "formhist": "/home/desk2/.elinks/formhist",
          "clients": {j: {"host": f"desk{j}", "user": f"desk{j}", **v} for j, v in CLIENTS.items()},
          "phases": {"buggy": [T0, T0 + T], "fixed": [T0 + T, T0 + 2 * T]},
          "tracing": {"strace_openat": [T0 + 1, T0 + 6], "strace_stacks": [T0 + 6, T0 + 6.5],
                      "bpftrace": {"status": "unavailable: no tracefs"}}}
    (tmp_path / "timeline.json").write_text(json.dumps(tl))
    (tmp_path / "server").mkdir()
    log = synthetic_log(rate=rate, seconds=T)
    # the fixed program's one look at start-up, inside the settling seconds
    log.append(sys_line(T0 + T + 0.2, 82, 'lstat name "/home/desk2/.elinks/formhist"'))
    (tmp_path / "server" / "sftp.log").write_text("\n".join(log) + "\n")
    cd = tmp_path / "clients" / "desk2"
    cd.mkdir(parents=True)
    (cd / "strace-openat.log").write_text("".join(
        f'{T0 + 1 + i / rate:.6f} openat(AT_FDCWD, "/home/desk2/.elinks/formhist", O_RDONLY) = -1 ENOENT '
        "(No such file or directory)\n" for i in range(5 * rate)))
    (cd / "strace-stacks.log").write_text(STACKS)
    (cd / "net.log").write_text("".join(f"{T0 + s} {1000 * s} {900 * s} {20 * s} {21 * s}\n" for s in range(21)))
    with gzip.open(cd / "strace-fixed.log.gz", "wt") as f:  # gzipped, as a reference run keeps large logs
        f.write(STRACE)
    d = lab.load(tmp_path)
    s = lab.summary(d)
    assert s["detected_client"] == 2 and s["detected_file"] == "/home/desk2/.elinks/formhist"
    assert s["detected_rate"] == pytest.approx(rate) and s["detected_op"] == "lstat"
    assert s["formhist_rate_before"] == pytest.approx(rate) and s["formhist_rate_after"] == 0
    assert s["formhist_requests_fixed_phase"] == 1 and s["after_before_ratio"] == 0
    assert s["client_enoent_rate"] == rate and s["client_enoent_fixed_total"] == 2  # two in STRACE
    assert s["server_per_strace_open"] == 1.0 and s["detected_median_rate"] == rate
    assert s["stack_chain_ok"] and s["stack"].startswith("main > select_loop")
    assert s["bpftrace"].startswith("unavailable") and "bpftrace_rate" not in s
    assert s["net_rpk_s_buggy"] == pytest.approx(20.0) and s["other_clients_rate"] == pytest.approx(3.0)


def test_plan_and_schema(lab, manifest):
    lb = manifest.lab("elinks")
    assert lb.params["buggy_client"].max == "clients"
    from perflab.config import params

    with pytest.raises(params.ParamError, match="buggy_client=5: above the maximum 4"):
        params.resolve(lb, None, {"clients": 4, "buggy_client": 5})
    v = params.resolve(lb, "smoke", {})
    assert sum(x for _, x in lab.plan(v)) < 75  # the smoke preset stays near a minute
    assert sum(x for _, x in lab.plan(params.resolve(lb, "full", {}))) < 300


def test_bpftrace_status_says_why_it_did_not_run(lab):
    ok = [json.dumps({"type": "time", "data": "1\n"}),
          json.dumps({"type": "map", "data": {"@opens": {"/x": 3}}}),
          json.dumps({"type": "map", "data": {"@stacks": {"\n a+0\n": 3}}})]
    memlock = "ERROR: Unknown error -1: couldn't set RLIMIT_MEMLOCK for bpftrace. If ..."
    assert lab.bpftrace_status(ok, memlock, 0) == "ran"
    err = memlock + "\nERROR: tracepoint not found: syscalls:sys_enter_openat\n"
    assert lab.bpftrace_status([], err, 1) == "unavailable: ERROR: tracepoint not found: syscalls:sys_enter_openat"
    assert lab.bpftrace_status([], memlock, 1) == "unavailable: exit status 1, no output"
    assert lab.bpftrace_status(ok[:2], "", 0) == "unavailable: exit status 0, no stack recorded"
    assert lab.bpftrace_status([], "", None) == "unavailable: bpftrace did not finish in time"


def test_drill_down_bars_go_on_a_log_axis_only_when_a_bar_would_vanish(lab):
    """Step 3's items are 63/s and 0.045/s: on a linear axis the small bar is drawn 0.3 px long. Past
    LOG_RATIO the axis is logarithmic and says so, and the items are dots, not bars (on a log axis a
    bar's length depends on where the axis starts), all inside the axis; every item keeps its rate as
    a label (0.045/s, not 0.0/s). Bars within LOG_RATIO stay linear bars."""
    fig = lab.fig_bars(pd.Series({"/a/formhist": 630, "/a": 0.45}), 10.0, "t", "file")
    assert fig.layout.xaxis.type == "log" and "log scale" in fig.layout.xaxis.title.text
    assert fig.data[0].type == "scatter" and fig.data[0].mode == "markers+text"
    lo, hi = fig.layout.xaxis.range
    assert lo < math.log10(0.045) and hi > math.log10(63.0)
    assert list(fig.data[0].text) == ["0.045/s", "63.0/s"]
    even = lab.fig_bars(pd.Series({"desk4": 630, "desk1": 70}), 10.0, "t", "client")
    assert even.layout.xaxis.type in (None, "linear", "-") and "log" not in even.layout.xaxis.title.text
    assert list(even.data[0].text) == ["7.0/s", "63.0/s"]
