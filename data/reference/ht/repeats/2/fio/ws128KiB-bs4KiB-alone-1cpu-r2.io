rchar: 27566566314
wchar: 13662
syscr: 6730312
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
