rchar: 13967624657
wchar: 5972
syscr: 106754
syscw: 3
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
