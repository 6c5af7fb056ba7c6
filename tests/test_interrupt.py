"""A real Ctrl-C in the middle of `theorycheck verify`: nothing half-written, and the next
run resumes from the tasks already stored."""

import json
import signal
import subprocess
import sys
import time

ARGS = ["verify", "cbss11.thm2", "--set", "repetitions=30", "examples=200000"]


def test_sigint_leaves_no_partial_files_and_the_rerun_resumes(tmp_path):
    cmd = [sys.executable, "-m", "theorycheck", *ARGS, "--out", str(tmp_path), "--quiet"]
    # A background shell (CI runners, nohup) starts us with SIGINT ignored, and a child
    # inherits that; give the child the default disposition so that Python turns the
    # signal into KeyboardInterrupt as it does in a terminal.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    cache = tmp_path / ".cache" / "cbss11.thm2"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(cache.rglob("task-*.json"))) < 3:
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    stored = len(list(cache.rglob("task-*.json")))
    assert 3 <= stored < 30
    assert not list(tmp_path.rglob("*.tmp"))
    assert not (tmp_path / "summary.json").exists() and not (tmp_path / "index.html").exists()

    rerun = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert json.loads(rerun.stdout)["claims"][0]["verdict"] == "PASS"
    result = json.loads((tmp_path / "results" / "cbss11.thm2.json").read_text())
    assert result["tasks_from_cache"] == stored
