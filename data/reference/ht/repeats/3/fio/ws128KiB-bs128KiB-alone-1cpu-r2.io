rchar: 93068921295
wchar: 5983
syscr: 710249
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
