rchar: 18769206264
wchar: 13662
syscr: 4582519
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
