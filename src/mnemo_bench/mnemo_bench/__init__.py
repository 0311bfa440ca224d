"""mnemo_bench: the benchmark suite behind ``mnemo bench``.

Pure Python over the cores (no ROS import except in ``ros_runner``): ``methods`` (the policies
compared), ``runner`` (patrol, then every task under its budget; the simulator's scorer alone
reads the truth), ``qa`` (memory questions in the spirit of ObsMem), ``stats`` (Wilson intervals,
aggregation), ``report`` (JSON, markdown, plots), ``cli`` (``mnemo bench``).
"""
