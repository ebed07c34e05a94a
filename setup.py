"""Package set-up in the nbdev 2 style: every setting comes from settings.ini."""
from configparser import ConfigParser
from pathlib import Path

import setuptools
config = ConfigParser(delimiters=["="])
config.read(Path(__file__).parent / "settings.ini", encoding="utf-8")
cfg = config["DEFAULT"]

for key in "version description keywords author author_email".split():
    if key not in cfg:
        raise ValueError(f"settings.ini must define {key!r}")

licenses = {"apache2": ("Apache Software License 2.0", "OSI Approved :: Apache Software License")}
statuses = ["1 - Planning", "2 - Pre-Alpha", "3 - Alpha", "4 - Beta", "5 - Production/Stable", "6 - Mature", "7 - Inactive"]
py_versions = "3.9 3.10 3.11 3.12 3.13".split()

lic = licenses.get(cfg["license"].lower(), (cfg["license"], None))
min_python = cfg["min_python"]
requirements = cfg.get("requirements", "").split()
lessons_requirements = cfg.get("lessons_requirements", "").split()  # what lessons import beyond the package
dev_requirements = cfg.get("dev_requirements", "").split() + lessons_requirements
console_scripts = [s for s in cfg.get("console_scripts", "").split() if s]
readme = Path(__file__).parent / "README.md"

setuptools.setup(
    name=cfg["lib_name"].replace("_", "-"),
    license=lic[0],
    classifiers=[
        "Development Status :: " + statuses[int(cfg["status"])],
        "Intended Audience :: " + cfg["audience"].title(),
        "Natural Language :: " + cfg["language"].title(),
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ]
    + ["Programming Language :: Python :: " + v for v in py_versions[py_versions.index(min_python):]]
    + (["License :: " + lic[1]] if lic[1] else []),
    url=cfg["git_url"],
    packages=setuptools.find_packages(include=[cfg["lib_name"], cfg["lib_name"] + ".*"]),
    package_data={cfg["lib_name"]: ["data/*.json", "data/*.pt"]},
    include_package_data=True,
    install_requires=requirements,
    extras_require={"lessons": lessons_requirements, "dev": dev_requirements},
    dependency_links=cfg.get("dep_links", "").split(),
    python_requires=">=" + min_python,
    long_description=readme.read_text(encoding="utf-8") if readme.exists() else cfg["description"],
    long_description_content_type="text/markdown",
    zip_safe=False,
    entry_points={"console_scripts": console_scripts, "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
    version=cfg["version"],
    description=cfg["description"],
    keywords=cfg["keywords"],
    author=cfg["author"],
    author_email=cfg["author_email"],
)
