rchar: 84532201935
wchar: 5981
syscr: 645119
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
