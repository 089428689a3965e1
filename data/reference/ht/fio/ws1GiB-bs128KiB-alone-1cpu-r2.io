rchar: 31749769681
wchar: 5974
syscr: 242421
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
