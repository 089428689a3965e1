rchar: 11849894855
wchar: 13662
syscr: 2893234
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
