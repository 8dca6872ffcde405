"""The set-up installs exact versions: the lock pins every package, and environment.yml agrees."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements-lock.txt"
ENVIRONMENT = ROOT / "environment.yml"


def normalise(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def locked_versions():
    """{package: version} from the lock's requirement lines (comments and markers skipped)."""
    pins = {}
    for line in LOCK.read_text().splitlines():
        requirement = line.split(";")[0].strip()
        if requirement and not requirement.startswith("#"):
            name, separator, version = requirement.partition("==")
            assert separator, f"lock line is not an exact pin: {line!r}"
            pins.setdefault(normalise(name), version.strip())
    return pins


def declared_dependencies():
    """The names pyproject.toml asks for: the core dependencies and the course and test extras."""
    text = (ROOT / "pyproject.toml").read_text()
    lists = re.findall(r'^(?:dependencies|course|test) = \[(.*?)\]', text, flags=re.M)
    names = re.findall(r'"([A-Za-z0-9_.-]+)', " ".join(lists))
    return {normalise(name) for name in names}


def test_every_declared_dependency_is_pinned_in_the_lock():
    missing = declared_dependencies() - set(locked_versions())
    assert not missing, f"run `make lock`: the lock lacks {sorted(missing)}"


def test_torch_stays_out_of_the_lock():
    assert "torch" not in locked_versions()


def test_environment_yml_pins_the_locked_versions():
    conda_to_pypi = {"python-graphviz": "graphviz"}
    pins = locked_versions()
    conda_pins = re.findall(r"^  - ([A-Za-z0-9_.-]+)=([0-9][^\s]*)$", ENVIRONMENT.read_text(), flags=re.M)
    assert len(conda_pins) >= 10
    for conda_name, version in conda_pins:
        if conda_name == "python":
            continue
        name = conda_to_pypi.get(conda_name, conda_name)
        assert pins[normalise(name)] == version, f"environment.yml pins {conda_name}={version}"
