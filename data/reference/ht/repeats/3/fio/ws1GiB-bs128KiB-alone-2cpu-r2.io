rchar: 83275525224
wchar: 18967
syscr: 635581
syscw: 5
read_bytes: 12288
write_bytes: 20480
cancelled_write_bytes: 0
