rchar: 25180441041
wchar: 5972
syscr: 192301
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
