rchar: 41918859729
wchar: 5972
syscr: 320005
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
