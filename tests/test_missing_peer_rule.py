"""One rule for a wait on a peer whose logs are absent (tester BJ, session 32): the peer, by the address or rank its
waiters' lines name, is the root and is said to be absent; where no line names it, the root is unknown and the
device that logged the wait is named as the one that waited. The same for notify waits, socket (link set-up) waits
and transport init errors, whichever single worker of a job was collected."""

from __future__ import annotations

from opsbrain.diagnosis.rootcluster import analyse
from tests.test_rootcluster import HOSTS, chain_bundle, collect, err, notify_lines, setup


def test_transport_chain_ending_at_an_absent_host_blames_that_host() -> None:
    files = chain_bundle(3)
    without_first = {k: v for k, v in files.items() if not k.startswith(HOSTS[0][0] + "/")}
    rc = analyse(collect(without_first))
    assert rc.kind == "transport"
    # the server address and device the chain's end waited for
    assert [p.name for p in rc.roots] == [f"{HOSTS[0][1]} device 0"]
    assert (rc.roots[0].worker, rc.roots[0].device) == (HOSTS[0][1], 0)
    assert rc.chain[-2:] == [f"{HOSTS[1][0]} device 1", f"{HOSTS[0][1]} device 0"]
    assert "absent" in rc.rule and "waited" in rc.rule
    assert rc.as_dict()["roots"][0]["peer"] is True


def test_a_transport_error_naming_no_remote_has_no_root() -> None:
    pid = 7
    files = {"w3/process_log/run/plog/plog-7_1.log": [setup(pid, 1, 3, 4, "10.9.0.9", 2, "10.1.0.9")],
             "w3/process_log/debug/plog/plog-7_2.log": [err(pid, 50.0, "[Create][DestLink]Transport init error! "
                                                              "createLink para:rank[3]-localUserrank[3]")]}
    rc = analyse(collect(files))
    assert rc.kind == "transport" and rc.roots == []
    assert "w3 device 2 waited for a peer" in rc.rule


def test_a_notify_wait_naming_an_absent_server_blames_that_server() -> None:
    """The task exception's ``remote[<server>]`` (no rank): every collected device waited on a host whose logs are
    absent; before, the root was 'unknown (the peer waited for is not named)'."""
    files = {}
    for r in range(2):
        lines = notify_lines(60 + r, 200 + r, "x")
        lines[0] = lines[0].replace("taskType[Notify Wait]", "taskType[Notify Wait], remote[10.0.0.40]")
        lines = lines[:1]
        files[f"h{r}/process_log/run/plog/plog-{60 + r}_1.log"] = [setup(60 + r, 1, r, 4, "10.0.0.33", r,
                                                                          f"10.8.0.{r}")] + lines
    rc = analyse(collect(files))
    assert rc.kind == "notify" and [p.name for p in rc.roots] == ["10.0.0.40"]
    assert "absent" in rc.rule
