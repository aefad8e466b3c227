"""A throwaway single-node SLURM cluster on 127.0.0.1, for the cluster test.

Debian packages (munge, slurmctld, slurmd, slurm-client), no accounting
database ("lite" mode: sacct does not work, so the profile polls with squeue),
no systemd, no cgroups. Every daemon runs in the foreground as a child of this
process and is stopped by its PID, never by name. After ../shared/SLURM.md,
which measured this recipe on these machines.

    cluster = Cluster(run_dir)
    cluster.install()     # apt-get update, apt-get install
    cluster.configure()   # /etc/slurm/slurm.conf, the munge key if missing
    cluster.start()       # munged, slurmctld, slurmd; waits for the node to be idle
    ...
    cluster.stop()        # every daemon this object started (SIGTERM, then SIGKILL)
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

PACKAGES = ["munge", "slurmctld", "slurmd", "slurm-client"]
PARTITION = "debug"
MARK = "# written by secondseat's tests/slurm_cluster.py"
CONF = Path("/etc/slurm/slurm.conf")
MUNGE_KEY = Path("/etc/munge/munge.key")


class Unavailable(Exception):
    """This machine cannot host the test cluster (the reason is the message)."""


def _run(cmd: list[str], timeout: float = 600, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout, **kw)


def usable() -> str | None:
    """None if a cluster can be installed here, else why not."""
    if os.name != "posix" or os.geteuid() != 0:
        return "needs root (installs Debian packages and starts SLURM daemons)"
    if shutil.which("apt-get") is None:
        return "needs apt-get (Debian packages munge, slurmctld, slurmd, slurm-client)"
    if CONF.exists() and MARK not in CONF.read_text(errors="replace"):
        return f"{CONF} exists and was not written by this test: not touching a real cluster"
    return None


def munge_works() -> bool:
    return _run(["bash", "-c", "munge -n | unmunge"], timeout=30).returncode == 0


def controller_up() -> bool:
    got = _run(["scontrol", "ping"], timeout=30)
    return got.returncode == 0 and "UP" in got.stdout


def node_idle() -> bool:
    got = _run(["sinfo", "-h", "-o", "%T"], timeout=30)
    return got.returncode == 0 and got.stdout.split()[:1] == ["idle"]


class Cluster:
    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.started: list[tuple[str, subprocess.Popen]] = []
        self.host = socket.gethostname().split(".")[0]

    # -- install and configure -------------------------------------------------

    def install(self) -> None:
        """apt-get update and install the four packages (Unavailable if apt cannot)."""
        if all(shutil.which(b) for b in ("munged", "slurmctld", "slurmd", "sbatch", "squeue")):
            return
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        update = _run(["apt-get", "update", "-qq"], env=env)
        if update.returncode != 0:
            raise Unavailable(f"apt-get update failed: {update.stderr.strip()[-300:]}")
        cmd = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *PACKAGES]
        got = _run(cmd, env=env)
        if got.returncode != 0:
            raise Unavailable(f"apt-get install failed: {got.stderr.strip()[-300:]}")

    def configure(self) -> None:
        """slurm.conf for one node on 127.0.0.1 (accounting off) and a munge key."""
        cpus = os.cpu_count() or 1
        probe = _run(["slurmd", "-C"], timeout=60).stdout
        mem = next(
            (int(w.split("=")[1]) for w in probe.split() if w.startswith("RealMemory=")), 1000
        )
        if not MUNGE_KEY.is_file() or MUNGE_KEY.stat().st_size == 0:
            _run(["mungekey", "--create", "--force"], timeout=60).check_returncode()
            shutil.chown(MUNGE_KEY, "munge", "munge")
            MUNGE_KEY.chmod(0o400)
        for d in ("/etc/slurm", "/var/spool/slurmctld", "/var/spool/slurmd", "/var/log/slurm"):
            Path(d).mkdir(parents=True, exist_ok=True)
        for d in ("/var/spool/slurmctld", "/var/log/slurm"):
            shutil.chown(d, "slurm", "slurm")
        CONF.write_text(
            f"""{MARK}
ClusterName=secondseat
SlurmctldHost={self.host}(127.0.0.1)
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile={self.run_dir}/slurmctld.pid
SlurmdPidFile={self.run_dir}/slurmd.pid
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile={self.run_dir}/slurmctld.log
SlurmdLogFile={self.run_dir}/slurmd.log
SlurmctldDebug=info
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
# squeue lists finished jobs this long; the snakemake plugin polls with squeue
# only if MinJobAge >= 3 x its first-poll delay
MinJobAge=600
InactiveLimit=0
KillWait=5
Waittime=0
NodeName={self.host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={mem * 9 // 10} State=UNKNOWN
PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
        )
        # slurmctld's log and pid files live in run_dir, written by the slurm user
        shutil.chown(self.run_dir, "slurm", "slurm")

    # -- start and stop --------------------------------------------------------

    def _spawn(self, name: str, cmd: list[str]) -> None:
        out = (self.run_dir / f"{name}.out").open("wb")
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self.started.append((name, proc))

    def _wait(self, what: str, ready: Callable[[], bool], seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name, proc in self.started:
                if proc.poll() is not None:
                    tail = (self.run_dir / f"{name}.out").read_text(errors="replace")[-1500:]
                    raise RuntimeError(
                        f"{name} exited ({proc.returncode}) waiting for {what}:\n{tail}"
                    )
            if ready():
                return
            time.sleep(0.25)
        raise RuntimeError(f"timed out waiting for {what}")

    def start(self) -> None:
        """munged, slurmctld (clean state), slurmd; returns when the node is idle."""
        Path("/run/munge").mkdir(parents=True, exist_ok=True)
        shutil.chown("/run/munge", "munge", "munge")
        if not munge_works():
            self._spawn(
                "munged",
                [
                    "setpriv",
                    "--reuid=munge",
                    "--regid=munge",
                    "--init-groups",
                    "/usr/sbin/munged",
                    "--foreground",
                ],
            )
            self._wait("munged", munge_works, 20)
        if controller_up():
            raise Unavailable("a SLURM controller is already running here")
        self._spawn("slurmctld", ["/usr/sbin/slurmctld", "-D", "-c", "-i"])
        self._wait("slurmctld", controller_up, 60)
        self._spawn("slurmd", ["/usr/sbin/slurmd", "-D"])
        self._wait("the node to be idle", node_idle, 90)

    def stop(self) -> None:
        """SIGTERM every daemon this object started (last first), SIGKILL if it lingers."""
        while self.started:
            _, proc = self.started.pop()
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)

    def log(self, name: str) -> str:
        p = self.run_dir / f"{name}.log"
        return p.read_text(errors="replace") if p.is_file() else ""
