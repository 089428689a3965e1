rchar: 40821173214
wchar: 13661
syscr: 311659
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
