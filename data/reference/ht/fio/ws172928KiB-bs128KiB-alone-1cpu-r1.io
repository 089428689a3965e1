rchar: 46836198374
wchar: 13662
syscr: 357550
syscw: 5
read_bytes: 196608
write_bytes: 8192
cancelled_write_bytes: 0
