# ruff: noqa
def main():
    bricks = observe()
    loose = [b for b in bricks if not b.in_structure]
    print(f"{len(loose)} loose bricks")
    go_home()


if __name__ == "__main__":
    main()
