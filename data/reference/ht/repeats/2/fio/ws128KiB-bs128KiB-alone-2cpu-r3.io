rchar: 115289033289
wchar: 11295
syscr: 879791
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
