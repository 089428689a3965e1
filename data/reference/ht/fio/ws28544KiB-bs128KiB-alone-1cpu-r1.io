rchar: 51528575966
wchar: 13666
syscr: 393350
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
