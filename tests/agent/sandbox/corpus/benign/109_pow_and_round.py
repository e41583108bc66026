# ruff: noqa
print(pow(2, 10), round(3.14159, 2), divmod(17, 5), 7 // 2, 7 % 2, -7 // 2)
