"""Labs leave host and Docker plumbing to perflab.infra (issue 42).

**Plumbing.** A lab asks the toolkit for containers, services, host objects and limits; it never
drives Docker or the host itself, so that one module owns each of them (cgroup v1 and v2, its
records, its clean-up). The finder reads the code's syntax tree, not its text, and applies these
rules to each labs/<lab>/*.py:

1. Docker's client: `import docker`; any use of an attribute named `client` (Topology's and a
   container's Docker client), `api`, `exec_create`, `exec_start`, `exec_inspect`, `networks`,
   `containers`, `from_env`, `APIClient`, `DockerClient`, or of `docker_client` (perflab.infra.labels'
   way to get one). An attribute chain that starts at a perflab module (`perflab.infra.containers.X`,
   or a name imported from perflab) is the toolkit, not Docker's client.
2. Processes on the host: importing subprocess or pty; os.system, os.popen, os.exec*, os.spawn*,
   os.posix_spawn*, os.fork; asyncio.create_subprocess_*.
3. Host paths, in string constants (an f-string read as one string):
   - anywhere in a string: `/dev/shm`, `/sys/fs/cgroup`, or a cgroup interface file (`blkio.throttle*`,
     `cpu.cfs_*`, `cpuacct.*`, `cgroup.procs`, `cpu.max`, `io.max`, `memory.max` ...). These hold inside
     a container too: a container sees its host's cgroup version, so such a path is the cgroup-limits
     service's to know, whoever reads it.
   - `/proc` or `/sys` at the start of a string: a path as Python opens it, on the host. Not when the
     string is an argument of a command line: a list or tuple whose first item is a word that is not a
     path (`["cat", "/proc/stat"]`, run in a container), or a shell command (`"cat /proc/$$/io"`,
     the string does not start with the path). A path a lab uses inside a container (`/data/x` for
     fio) is none of the above.

   A string that is a statement of its own (a docstring) documents and does nothing, and a comment
   is not in the tree: neither is use. Prose inside a string that runs (a check's `about=`) is read
   like any string, but the patterns above are paths and file names, not words.

(Import circles inside a lab package, counting imports inside functions: tests/test_layers.py.)
"""
from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

DOCKER_ATTRS = frozenset({"client", "api", "exec_create", "exec_start", "exec_inspect", "networks", "containers",
                          "from_env", "APIClient", "DockerClient", "docker_client"})
PROCESS_MODULES = frozenset({"subprocess", "pty", "docker"})
OS_PROCESS = re.compile(r"^(system|popen|exec\w*|spawn\w*|posix_spawn\w*|fork\w*)$")
ANYWHERE = re.compile(r"/dev/shm|/sys/fs/cgroup|\bblkio\.(throttle|io_|weight|sectors|time|reset)|\bcpu\.cfs_|"
                      r"\bcpuacct\.|\bcgroup\.(procs|controllers|subtree_control)|\b(cpu|io|memory)\.max\b|"
                      r"\bmemory\.(limit_in_bytes|usage_in_bytes)")
HOST_ROOT = re.compile(r"^/(proc|sys)(/|$)")


def lab_packages() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "labs").glob("*/__init__.py"))


def _module_root(e: ast.AST) -> str | None:
    """The name a plain attribute chain starts at (`perflab.infra.containers.x`: perflab); None when
    the chain goes through a call or an index (`labels.docker_client().networks` is no module's)."""
    while isinstance(e, ast.Attribute):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def _argv_items(tree: ast.AST) -> set[int]:
    """ids of the strings that are arguments in a command line: a list or tuple led by a word."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.List, ast.Tuple)) and n.elts:
            head = n.elts[0]
            if isinstance(head, ast.Constant) and isinstance(head.value, str) and not head.value.startswith("/"):
                out.update(id(e) for e in n.elts[1:])
    return out


def _strings(tree: ast.AST):
    """(node, text) of each string that runs: f-strings as one text, docstrings and other string
    statements left out."""
    skip = {id(s.value) for s in ast.walk(tree) if isinstance(s, ast.Expr)
            and isinstance(s.value, (ast.Constant, ast.JoinedStr))}
    for n in ast.walk(tree):
        if isinstance(n, ast.JoinedStr):
            skip.update(id(v) for v in ast.walk(n) if v is not n)
            if id(n) not in skip:
                yield n, "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in n.values)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skip:
            yield n, n.value


def plumbing(text: str, where: str) -> list[str]:
    """'where:line: what' for each use of Docker's client, a host process or a host path (rules above)."""
    tree = ast.parse(text)
    ours = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            and (n.module or "").split(".")[0] == "perflab" for a in n.names}
    ours |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
             for a in n.names if a.name.split(".")[0] == "perflab"}
    ours.discard("docker_client")   # imported from perflab.infra.labels, it is still Docker's client
    bad, covered = [], set()   # covered: the inner links of a chain already named (srv.client of srv.client.api)
    for n in ast.walk(tree):   # breadth first: a chain's outer link comes before its inner ones
        if isinstance(n, ast.Import):
            bad += [f"{where}:{n.lineno}: imports {a.name}" for a in n.names if a.name.split(".")[0] in PROCESS_MODULES]
        elif isinstance(n, ast.ImportFrom) and not n.level:
            top = (n.module or "").split(".")[0]
            if top in PROCESS_MODULES:
                bad.append(f"{where}:{n.lineno}: imports {n.module}")
            elif top == "os":
                bad += [f"{where}:{n.lineno}: imports os.{a.name}" for a in n.names if OS_PROCESS.match(a.name)]
            elif top == "asyncio":
                bad += [f"{where}:{n.lineno}: imports asyncio.{a.name}" for a in n.names
                        if a.name.startswith("create_subprocess") or a.name == "subprocess"]
            bad += [f"{where}:{n.lineno}: imports {a.name} (Docker's client)" for a in n.names
                    if a.name == "docker_client"]
        elif isinstance(n, ast.Attribute):
            root = _module_root(n)
            if n.attr == "docker_client" or (n.attr in DOCKER_ATTRS and root not in ours and root != "perflab"):
                if id(n) not in covered:
                    bad.append(f"{where}:{n.lineno}: {ast.unparse(n)} (Docker's client)")
                covered.update(id(v) for v in ast.walk(n.value) if isinstance(v, ast.Attribute))
            elif isinstance(n.value, ast.Name) and n.value.id == "os" and OS_PROCESS.match(n.attr):
                bad.append(f"{where}:{n.lineno}: os.{n.attr} (a process on the host)")
            elif (isinstance(n.value, ast.Name) and n.value.id == "asyncio"
                  and n.attr.startswith("create_subprocess")):
                bad.append(f"{where}:{n.lineno}: asyncio.{n.attr} (a process on the host)")
        elif isinstance(n, ast.Name) and n.id == "docker_client":
            bad.append(f"{where}:{n.lineno}: docker_client (Docker's client)")
    argv = _argv_items(tree)
    for n, s in _strings(tree):
        if ANYWHERE.search(s) or (HOST_ROOT.match(s) and id(n) not in argv):
            bad.append(f"{where}:{n.lineno}: {s!r} (a host or cgroup path)")
    return sorted(set(bad), key=lambda b: (b.split(":")[0], int(b.split(":")[1]), b))


def lab_plumbing(pkg: Path) -> list[str]:
    return [b for p in sorted(pkg.glob("*.py")) for b in plumbing(p.read_text(), str(p.relative_to(ROOT)))]


@pytest.mark.parametrize("pkg", lab_packages(), ids=lambda p: p.name)
def test_a_lab_leaves_docker_and_the_host_to_the_toolkit(pkg):
    bad = lab_plumbing(pkg)
    assert not bad, f"labs/{pkg.name} does the toolkit's plumbing itself:\n" + "\n".join(bad)


# -- the finders can fail ---------------------------------------------------------------------------------

PLANTED_PLUMBING = {
    "import docker": "import docker\n",
    "docker.from_env": "def f(docker):\n    return docker.from_env()\n",
    "exec_create": "def f(srv):\n    srv.client.api.exec_start(srv.client.api.exec_create(srv.id, ['x']))\n",
    "networks": "def f(topo, srv):\n    topo.client.networks.get('n').connect(srv)\n",
    "docker_client": "from perflab.infra.labels import docker_client\nc = docker_client()\n",
    "labels.docker_client": "from perflab.infra import labels\nnames = labels.docker_client().networks.list()\n",
    "subprocess": "import subprocess\n",
    "os.system": "import os\nos.system('ls')\n",
    "/dev/shm": "from pathlib import Path\nSCRATCH = Path('/dev/shm') / 'x'\n",
    "cgroup v1": "BLKIO = '/sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes'\n",
    "cgroup file in a container's shell": "def f(c):\n    c.exec(['sh', '-c', 'cat cpu.cfs_quota_us'])\n",
    "a host /proc path": "def f(pid):\n    return open(f'/proc/{pid}/io').read()\n",
    "/sys in a list of paths": "FILES = ['/sys/block/sda/stat', '/sys/block/sdb/stat']\n",
}


@pytest.mark.parametrize("case", sorted(PLANTED_PLUMBING))
def test_a_planted_plumbing_use_is_found(case):
    assert plumbing(PLANTED_PLUMBING[case], "fake.py"), f"{case}: not found in\n{PLANTED_PLUMBING[case]}"


def test_what_is_not_plumbing_is_not_flagged():
    text = textwrap.dedent('''
        """The disks live on tmpfs (/dev/shm/perflab-RUN/), limited by blkio.throttle (cgroup v1)."""
        from perflab.infra import containers
        from perflab.infra.containers import volumes_disk
        import perflab.infra.containers

        # reads /proc/stat and /sys/fs/cgroup through the toolkit
        def run(s, topo, c):
            """Runs cat /proc/$$/io in the container."""
            disk = containers.volumes_disk(topo)
            perflab.infra.containers.volumes_disk(topo)
            c.exec(["cat", "/proc/stat"])
            c.exec(["sh", "-c", "cat /proc/$$/io > x.io"])
            s.provenance(tools={"kernel blkio": "cgroup v1 throttle (device_write_bps)"})
            return {"filename": "/data/x.dat", "about": "read_bytes of /proc/PID/io"}
        ''')
    assert plumbing(text, "fake.py") == []
