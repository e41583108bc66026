# ruff: noqa
def refine_pose():
    pass  # TODO: use where_is() once the first layer is done


refine_pose()
print(len(observe()))
