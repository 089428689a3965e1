rchar: 78703864872
wchar: 18969
syscr: 600683
syscw: 5
read_bytes: 102400
write_bytes: 16384
cancelled_write_bytes: 0
