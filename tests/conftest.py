def pytest_configure(config):
    config.addinivalue_line(
        "markers", "torch: compares with torch 2.13; skipped when torch is absent"
    )
