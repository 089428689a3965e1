rchar: 12703607796
wchar: 13652
syscr: 12335
syscw: 5
read_bytes: 90112
write_bytes: 12288
cancelled_write_bytes: 0
