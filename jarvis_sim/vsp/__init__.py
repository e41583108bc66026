"""VSP (Visual Spatial Planning): maze navigation and blocks world as question items.

Pure Python: simulators and solvers (`maze`, `blocks`), the official dataset layout (`layout`),
prompts (`prompts`), image rendering (`render_maze`, `render_blocks`), seeded generators
(`generate`) and the task family (`family`).
"""
