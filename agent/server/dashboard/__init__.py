"""The researcher's dashboard: runs, a run's tables and plots, an episode round by round (HTML, no CDN)."""
