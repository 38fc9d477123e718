// Replaced by the configuration loader.
