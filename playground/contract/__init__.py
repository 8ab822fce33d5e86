"""The contract every side shares, with no TensorFlow and no Streamlit: the Job and its Report
(the only data that crosses the sandbox), the call-spec grammar, settings, errors, the
translations, seeded values, timing statistics and the installed TF versions."""
