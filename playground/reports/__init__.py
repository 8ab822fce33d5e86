"""What reads Reports: compare mode's typed differences, the claims x versions table, and a run
as a Jupyter notebook. No TensorFlow: each works on Report data."""
