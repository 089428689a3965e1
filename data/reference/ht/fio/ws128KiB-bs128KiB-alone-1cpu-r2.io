rchar: 79954291671
wchar: 13666
syscr: 610222
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
